package io.ferry.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs the shaded {@code target/ferry.jar} itself with {@code java -jar}, as the launcher does: the jar is
 * minimised and stripped of other platforms' native libraries, so what the unit tests prove on the class
 * path is proved here again on what ships. Runs in {@code verify}, after {@code package}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class FerryJarIT {

    private static final Path JAR = Path.of("target", "ferry.jar");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern LISTENING = Pattern.compile("receiving into .* on ([a-z]+://[^ ]+)");
    private static final Pattern PIN = Pattern.compile("TLS certificate (sha256:[0-9a-f]{64})");
    private static final Pattern METRICS = Pattern.compile("metrics on (http://[^ ]+/metrics)");

    @TempDir
    Path tmp;

    private final List<Process> started = new ArrayList<>();

    @org.junit.jupiter.api.AfterEach
    void stopLeftovers() throws InterruptedException {
        for (Process p : started) {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private Process ferry(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-jar", JAR.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectError(tmp.resolve("stderr-" + started.size() + ".txt").toFile()).start();
        started.add(p);
        return p;
    }

    private String stderr(Process p) throws IOException {
        return Files.readString(tmp.resolve("stderr-" + started.indexOf(p) + ".txt"));
    }

    private static String finish(Process p) throws Exception {
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "ferry exits by itself");
        return out;
    }

    @Test
    void theJarIsAtMostFiveMegabytes() throws IOException {
        long size = Files.size(JAR);
        assertTrue(size <= 5_000_000, "ferry.jar is " + size + " bytes");
    }

    @Test
    void everyClassInTheJarIsAJava6OrNewerClassFileThatTheClassArchiveCanHold() throws IOException {
        // picocli ships Java 5 class files, which JDK 17's archive skips; the build rewrites them (build-tools)
        List<String> old = new ArrayList<>();
        try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(JAR.toFile())) {
            for (java.util.zip.ZipEntry e : java.util.Collections.list(zip.entries())) {
                if (e.getName().endsWith(".class")) {
                    byte[] header = zip.getInputStream(e).readNBytes(8);
                    if (((header[6] & 0xFF) << 8 | (header[7] & 0xFF)) < 50) {
                        old.add(e.getName());
                    }
                }
            }
        }
        assertEquals(List.of(), old);
    }

    @Test
    void theDemoMovesAFileOverEveryTransportWithTheNativeLibrariesLoaded() throws Exception {
        Process demo = ferry("demo", "--size", "4M", "--json");
        String out = finish(demo);
        assertEquals(0, demo.exitValue(), () -> out + stderrQuietly(demo));
        JsonNode runs = JSON.readTree(out);
        List<String> transports = new ArrayList<>();
        for (JsonNode run : runs) {
            transports.add(run.get("transport").asText());
            assertTrue(run.get("ok").asBoolean(), run.toString());
        }
        // quic:// comes from lib/ beside the jar (the manifest's Class-Path), after the shaded three
        assertEquals(List.of("tcp", "utp", "udt", "quic"), transports, "every transport registered through ServiceLoader survived shading");
        String arch = System.getProperty("os.arch");
        if (System.getProperty("os.name").startsWith("Linux") && (arch.equals("amd64") || arch.equals("aarch64"))) {
            for (JsonNode run : runs) {
                if (!run.get("transport").asText().equals("udt")) {
                    assertTrue(run.get("implementation").asText().startsWith("epoll"),
                            "Netty's epoll JNI library loaded (no silent fall-back to NIO): " + run);
                }
            }
        }
    }

    @Test
    void aTlsReceiverServesItsTransportMetersDuringATransferAndStoresTheFile() throws Exception {
        byte[] data = new byte[6_000_000];
        new SplittableRandom(7).nextBytes(data);
        Path source = Files.write(tmp.resolve("jar.bin"), data);
        Path inbox = tmp.resolve("inbox");
        Process receiver = ferry("receive", "--listen", "utp://127.0.0.1:0", "--dir", inbox.toString(), "--tls", "--metrics-port", "0");
        BufferedReader lines = new BufferedReader(new InputStreamReader(receiver.getInputStream(), StandardCharsets.UTF_8));
        String uri = null;
        String pin = null;
        String metrics = null;
        String engine = null;
        for (String line; (uri == null || pin == null || metrics == null || engine == null) && (line = lines.readLine()) != null; ) {
            Matcher m;
            if ((m = LISTENING.matcher(line)).find()) {
                uri = m.group(1);
            } else if ((m = PIN.matcher(line)).find()) {
                pin = m.group(1);
            } else if ((m = METRICS.matcher(line)).find()) {
                metrics = m.group(1);
            } else if (line.startsWith("TLS engine: ")) {
                engine = line.substring("TLS engine: ".length());
            }
        }
        assertTrue(uri != null && pin != null && metrics != null && engine != null,
                "the receiver printed where it listens, its pin, its TLS engine and its meters");
        String arch = System.getProperty("os.arch").equals("amd64") ? "x86_64" : System.getProperty("os.arch").equals("aarch64") ? "aarch_64" : "";
        Path libDir = JAR.resolveSibling("lib");
        try (var lib = Files.isDirectory(libDir) ? Files.list(libDir) : java.util.stream.Stream.<Path>empty()) {
            if (!arch.isEmpty() && lib.anyMatch(f -> f.getFileName().toString().endsWith("-linux-" + arch + ".jar"))) {
                // the build put netty-tcnative beside the jar: the manifest's Class-Path must bring it in (minimizeJar kept
                // Netty's OpenSSL classes), and this transfer runs on BoringSSL
                assertTrue(engine.startsWith("BoringSSL"), "TLS through the tcnative jars beside ferry.jar: " + engine);
            }
        }
        // slowed down so that it is still going while the meters are scraped
        Process sender = ferry("send", "--pin", pin, "--limit-rate", "1M", source.toString(), uri);
        HttpClient http = HttpClient.newHttpClient();
        Pattern transportMeter = Pattern.compile("(?m)^ferry_transport_bytes_received\\w*\\{[^}]*role=\"receiver\"[^}]*transport=\"utp\"[^}]*} [1-9]");
        String body = "";
        while (sender.isAlive() && !transportMeter.matcher(body).find()) {
            body = http.send(HttpRequest.newBuilder(URI.create(metrics)).build(), HttpResponse.BodyHandlers.ofString()).body();
        }
        assertTrue(transportMeter.matcher(body).find(), "scraped while the transfer ran: " + body);
        assertTrue(sender.isAlive(), "the meters were there before the transfer ended");
        finish(sender);
        assertEquals(0, sender.exitValue(), stderr(sender));
        assertArrayEquals(data, Files.readAllBytes(inbox.resolve("jar.bin")));
        String after = http.send(HttpRequest.newBuilder(URI.create(metrics)).build(), HttpResponse.BodyHandlers.ofString()).body();
        assertTrue(after.contains("ferry_receiver_files_total{status=\"stored\"} 1.0"), after);
        receiver.destroy();
        receiver.waitFor(10, TimeUnit.SECONDS);
    }

    @Test
    void keygenHelpAndCompletionWork() throws Exception {
        Process keygen = ferry("keygen", "--out", tmp.resolve("keys").toString());
        String out = finish(keygen);
        assertEquals(0, keygen.exitValue(), () -> stderrQuietly(keygen));
        assertTrue(out.contains("fingerprint sha256:"), out);
        Process completion = ferry("generate-completion");
        assertTrue(finish(completion).contains("complete -F"));
        assertEquals(0, completion.exitValue());
        Process help = ferry("help", "send");
        assertTrue(finish(help).contains("--token-file"));
    }

    private String stderrQuietly(Process p) {
        try {
            return stderr(p);
        } catch (IOException e) {
            return e.toString();
        }
    }
}
