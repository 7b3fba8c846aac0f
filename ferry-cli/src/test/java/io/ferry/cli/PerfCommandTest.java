package io.ferry.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code ferry perf} as a person runs it: two processes on loopback, the JSON report and chart, and the usage errors. */
@Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PerfCommandTest {

    private static final Pattern SERVING = Pattern.compile("serving tests on [^ ]+:(\\d+)");
    private final List<Process> started = new ArrayList<>();

    @TempDir
    Path tmp;

    @AfterEach
    void stop() throws InterruptedException {
        for (Process p : started) {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private Process ferry(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                FerryCli.class.getName()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).start();
        started.add(p);
        return p;
    }

    private static CompletableFuture<String> text(java.io.InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return e.toString();
            }
        });
    }

    @Test
    void everyInstalledTransportIsTestedBothWaysAndReportedAsJsonWithAChart() throws Exception {
        Process server = ferry("perf", "--server", "--bind", "127.0.0.1", "--port", "0", "--data-port", "0", "--once");
        BufferedReader serverErr = new BufferedReader(new InputStreamReader(server.getErrorStream(), StandardCharsets.UTF_8));
        int port = -1;
        for (String line; port < 0 && (line = serverErr.readLine()) != null; ) {
            Matcher m = SERVING.matcher(line);
            if (m.find()) {
                port = Integer.parseInt(m.group(1));
            }
        }
        assertTrue(port > 0, "the server said where it serves");
        CompletableFuture<String> serverLog = text(server.getErrorStream());
        List<String> schemes = InstalledTransports.names();
        Path chart = tmp.resolve("path.svg");
        Process client = ferry("perf", "127.0.0.1:" + port, "--time", "2", "--transports", String.join(",", schemes), "--no-fairness",
                "--json", "--chart", chart.toString());
        CompletableFuture<String> out = text(client.getInputStream());
        CompletableFuture<String> err = text(client.getErrorStream());
        assertTrue(client.waitFor(120, TimeUnit.SECONDS), "the client finished");
        assertEquals(0, client.exitValue(), () -> "exit 0; stderr: " + err.join() + " stdout: " + out.join());
        JsonNode report = new ObjectMapper().readTree(out.get(10, TimeUnit.SECONDS));
        assertEquals("ferry-perf/1", report.get("schema").asText());
        assertEquals(2 * schemes.size(), report.get("tests").size(), "a row per transport each way: " + report.get("tests"));
        for (JsonNode t : report.get("tests")) {
            assertTrue(t.get("error").isNull() && t.get("goodput_mbps").asDouble() > 0, "moved data: " + t);
            assertEquals(1, t.get("per_second_mbps").size(), "2 s split between the two ways: one second each");
        }
        assertTrue(report.get("fairness").isNull(), "--no-fairness");
        assertTrue(Files.readString(chart).startsWith("<svg"), "the chart");
        assertTrue(server.waitFor(30, TimeUnit.SECONDS), "--once: the server exits after its client");
        assertEquals(0, server.exitValue());
        assertTrue(serverLog.get(10, TimeUnit.SECONDS).contains("127.0.0.1: " + 2 * schemes.size() + " tests, done"), serverLog.join());
    }

    private static int run(StringWriter err, String... args) {
        picocli.CommandLine cli = FerryCli.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));
        return cli.execute(args);
    }

    @Test
    void usageErrorsSayWhatIsMissingOrClashing() {
        StringWriter err = new StringWriter();
        assertEquals(2, run(err, "perf"));
        assertTrue(err.toString().contains("a HOST to test is needed (or --server to serve tests)"), err.toString());
        err = new StringWriter();
        assertEquals(2, run(err, "perf", "--reverse", "--bidir", "host"));
        assertTrue(err.toString().contains("--reverse, --upload and --bidir: one at most"), err.toString());
        err = new StringWriter();
        assertEquals(2, run(err, "perf", "--server", "host"));
        assertTrue(err.toString().contains("--server takes no HOST"), err.toString());
        err = new StringWriter();
        assertEquals(2, run(err, "perf", "host:notaport"));
        assertTrue(err.toString().contains("'notaport' is not a port number"), err.toString());
        err = new StringWriter();
        assertEquals(2, run(err, "perf", "--pin", "sha256:00", "--server"));
        assertTrue(err.toString().contains("--pin is for the client"), err.toString());
    }

    @Test
    void aHostWithNoServerIsNamedWithTheCommandToStartOne() throws Exception {
        int free;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            free = s.getLocalPort();
        }
        StringWriter err = new StringWriter();
        assertEquals(1, run(err, "perf", "127.0.0.1:" + free, "--no-fairness"));
        assertTrue(err.toString().contains("cannot reach a ferry perf server at 127.0.0.1:" + free), err.toString());
        assertTrue(err.toString().contains("ferry perf --server"), err.toString());
    }
}
