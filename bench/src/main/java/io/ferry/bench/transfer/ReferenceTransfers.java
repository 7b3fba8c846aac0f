package io.ferry.bench.transfer;

import io.ferry.bench.netns.NetworkNamespace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The best alternatives, run over the same emulated link as Ferry's transfers so that a report can
 * give Ferry's figure as a ratio of theirs: {@code iperf3} (the kernel's TCP, memory to memory) and a
 * small C++ program on Debian's native UDT4 library ({@code libudt-dev}, default options), both as
 * child processes in the client's and the server's network namespaces ({@code ip netns exec}).
 */
public final class ReferenceTransfers {

    /** One reference transfer: whether it completed, its time and what arrived. */
    public record Result(boolean ok, double seconds, long bytes, String failure) {
        public double mbitPerSecond() {
            return seconds > 0 ? bytes * 8 / seconds / 1e6 : 0;
        }

        static Result failed(String why) {
            return new Result(false, 0, 0, why);
        }
    }

    private static final int IPERF_PORT = 5201;
    private static final int UDT_PORT = 9011;
    private static Path udtBulk;

    private ReferenceTransfers() {
    }

    /** Why iperf3 cannot run here, or empty. */
    public static Optional<String> iperf3Missing() {
        return runs("iperf3", "--version") ? Optional.empty() : Optional.of("iperf3 is not installed (Debian package iperf3)");
    }

    /**
     * {@code iperf3 -c SERVER -n BYTES -C CC} from the client's namespace to a one-off server in the
     * server's namespace; the time and bytes are the receiver's ({@code end.sum_received}). iperf3 ends
     * the test when its sender has <em>written</em> the bytes, so the receiver has most but not all of
     * them by then (190 of 200 MB on the 150 ms link): its rate, bytes over seconds, is the figure to
     * compare, not the time.
     */
    public static Result iperf3(NetworkNamespace client, NetworkNamespace server, String serverAddress, long bytes,
                                String congestionControl, Duration timeout) {
        Process listener = null;
        try {
            listener = start(server, "iperf3", "-s", "-1", "--forceflush", "-B", serverAddress, "-p", Integer.toString(IPERF_PORT));
            awaitLine(listener, "Server listening", Duration.ofSeconds(10));
            Process sender = start(client, "iperf3", "-c", serverAddress, "-p", Integer.toString(IPERF_PORT), "-n", Long.toString(bytes),
                    "-C", congestionControl, "-J");
            CompletableFuture<String> out = readAll(sender.getInputStream());
            if (!sender.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                sender.destroyForcibly();
                return Result.failed("timeout after " + timeout.toSeconds() + " s");
            }
            String json = out.get(10, TimeUnit.SECONDS);
            Matcher received = Pattern.compile("\"sum_received\"\\s*:\\s*\\{([^}]*)}").matcher(json);
            if (sender.exitValue() != 0 || !received.find()) {
                return Result.failed("iperf3 exited " + sender.exitValue() + ": " + firstLine(json));
            }
            String sum = received.group(1);
            return new Result(true, number(sum, "seconds"), (long) number(sum, "bytes"), null);
        } catch (Exception e) {
            return Result.failed(e.toString());
        } finally {
            if (listener != null) {
                listener.destroyForcibly();
            }
        }
    }

    /** The {@code ferry} tool's jar, as the build leaves it. */
    private static final Path FERRY_JAR = Files.isRegularFile(Path.of("ferry-cli/target/ferry.jar")) || !Files.isDirectory(Path.of("../ferry-cli"))
            ? Path.of("ferry-cli/target/ferry.jar") : Path.of("../ferry-cli/target/ferry.jar");
    private static final int FERRY_PORT = 9300;

    /** The {@code ferry} tool's jar, from the project root or from a module beside {@code ferry-cli} (a test's working directory). */
    static Path ferryJar() {
        return FERRY_JAR;
    }

    /** Why the {@code ferry} tool cannot run here, or empty. */
    public static Optional<String> ferryMissing() {
        return Files.isRegularFile(FERRY_JAR) ? Optional.empty()
                : Optional.of(FERRY_JAR + " is not built (./mvnw -DskipTests -pl ferry-cli -am package, or ./ferry once, from the project root)");
    }

    /**
     * {@code ferry send --streams STREAMS FILE tcp://SERVER} from the client's namespace to {@code ferry
     * receive --once} in the server's, both as child processes like a user runs them, with a file of
     * {@code bytes} random bytes; the time is the sender's session time from its {@code --json} summary,
     * and the run counts only if the sender exited 0 (the receiver verified the SHA-256) and the received
     * file is byte-identical.
     */
    public static Result ferrySend(NetworkNamespace client, NetworkNamespace server, String serverAddress, long bytes,
                                   int streams, String congestionControl, Duration timeout) {
        Process receiver = null;
        Process sender = null;
        Path dir = null;
        try {
            dir = Files.createTempDirectory("ferry-send-bench");
            Path file = dir.resolve("payload.bin");
            Path inbox = Files.createDirectory(dir.resolve("inbox"));
            byte[] chunk = new byte[1 << 20];
            java.util.SplittableRandom random = new java.util.SplittableRandom(bytes);
            try (java.io.OutputStream out = Files.newOutputStream(file)) {
                for (long left = bytes; left > 0; left -= chunk.length) {
                    random.nextBytes(chunk);
                    out.write(chunk, 0, (int) Math.min(chunk.length, left));
                }
            }
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            String uri = "tcp://" + serverAddress + ":" + FERRY_PORT;
            receiver = start(server, java, "-jar", FERRY_JAR.toString(), "receive", "--listen", uri, "--dir", inbox.toString(), "--once",
                    "--opt", "congestion-control=" + congestionControl);
            awaitLine(receiver, "receiving into", Duration.ofSeconds(30));
            sender = start(client, java, "-jar", FERRY_JAR.toString(), "send", "--streams", Integer.toString(streams),
                    "--opt", "congestion-control=" + congestionControl, file.toString(), uri, "--json");
            CompletableFuture<String> out = readAll(sender.getInputStream());
            if (!sender.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                sender.destroyForcibly();
                return Result.failed("timeout after " + timeout.toSeconds() + " s");
            }
            String all = out.get(10, TimeUnit.SECONDS);
            int json = all.lastIndexOf("{\"uri\"");
            if (sender.exitValue() != 0 || json < 0) {
                return Result.failed("ferry send exited " + sender.exitValue() + ": " + firstLine(all));
            }
            if (Files.mismatch(file, inbox.resolve("payload.bin")) != -1) {
                return Result.failed("the received file differs from the sent one");
            }
            return new Result(true, number(all.substring(json), "seconds"), bytes, null);
        } catch (Exception e) {
            return Result.failed(e.toString());
        } finally {
            if (sender != null) {
                sender.destroyForcibly();
            }
            if (receiver != null) {
                receiver.destroyForcibly();
            }
            if (dir != null) {
                deleteTree(dir);
            }
        }
    }

    private static void deleteTree(Path dir) {
        try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind
        }
    }

    /** Why the native UDT program cannot be built here, or empty. */
    public static Optional<String> libudtMissing() {
        if (!Files.isRegularFile(Path.of("/usr/include/udt/udt.h"))) {
            return Optional.of("Debian's libudt-dev is not installed (/usr/include/udt/udt.h)");
        }
        return runs("g++", "--version") ? Optional.empty() : Optional.of("g++ is not installed");
    }

    /**
     * Sends {@code bytes} with native UDT4 (default options: its own congestion control, 8 MB-class
     * buffers) from the client's namespace to the server's; the time is the receiver's, from accepting
     * the connection to the last byte.
     */
    public static Result libudt(NetworkNamespace client, NetworkNamespace server, String serverAddress, long bytes, Duration timeout) {
        Process receiver = null;
        Process sender = null;
        try {
            Path program = udtBulk();
            receiver = start(server, program.toString(), "recv", serverAddress, Integer.toString(UDT_PORT), Long.toString(bytes));
            BufferedReader lines = new BufferedReader(new InputStreamReader(receiver.getInputStream(), StandardCharsets.UTF_8));
            CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> readLine(lines));
            String first = ready.get(10, TimeUnit.SECONDS);
            if (!"READY".equals(first)) {
                return Result.failed("native receiver: " + first);
            }
            sender = start(client, program.toString(), "send", serverAddress, Integer.toString(UDT_PORT), Long.toString(bytes));
            CompletableFuture<String> done = CompletableFuture.supplyAsync(() -> readLine(lines));
            String line = done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (line == null || !line.startsWith("RECEIVED ")) {
                return Result.failed("native receiver: " + line);
            }
            String[] parts = line.split(" ");
            return new Result(true, Double.parseDouble(parts[2]), Long.parseLong(parts[1]), null);
        } catch (java.util.concurrent.TimeoutException e) {
            return Result.failed("timeout after " + timeout.toSeconds() + " s");
        } catch (Exception e) {
            return Result.failed(e.toString());
        } finally {
            if (sender != null) {
                sender.destroyForcibly();
            }
            if (receiver != null) {
                receiver.destroyForcibly();
            }
        }
    }

    private static synchronized Path udtBulk() throws IOException, InterruptedException {
        if (udtBulk != null) {
            return udtBulk;
        }
        Path dir = Files.createTempDirectory("ferry-udt-bulk");
        Path source = dir.resolve("udt_bulk.cpp");
        try (InputStream in = ReferenceTransfers.class.getResourceAsStream("udt_bulk.cpp")) {
            if (in == null) {
                throw new IOException("udt_bulk.cpp is missing from the bench jar");
            }
            Files.copy(in, source);
        }
        Path program = dir.resolve("udt_bulk");
        Process gcc = new ProcessBuilder("g++", "-O2", "-std=c++11", "-I/usr/include/udt", "-o", program.toString(),
                source.toString(), "-ludt", "-lpthread").redirectErrorStream(true).start();
        String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!gcc.waitFor(120, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
            throw new IOException("g++ could not build udt_bulk: " + out);
        }
        program.toFile().deleteOnExit();
        source.toFile().deleteOnExit();
        dir.toFile().deleteOnExit();
        udtBulk = program;
        return program;
    }

    static Process start(NetworkNamespace ns, String... command) throws IOException {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", ns.name()));
        full.addAll(List.of(command));
        return new ProcessBuilder(full).redirectErrorStream(true).start();
    }

    static void awaitLine(Process p, String prefix, Duration timeout) throws Exception {
        BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> found = CompletableFuture.supplyAsync(() -> {
            String line;
            while ((line = readLine(lines)) != null) {
                if (line.contains(prefix)) {
                    return line;
                }
            }
            return null;
        });
        if (found.get(timeout.toMillis(), TimeUnit.MILLISECONDS) == null) {
            throw new IOException("no '" + prefix + "' from " + p.info().commandLine().orElse("the process"));
        }
        // keep draining so the child never blocks on a full pipe
        CompletableFuture.runAsync(() -> {
            while (readLine(lines) != null) {
                // discard
            }
        });
    }

    private static String readLine(BufferedReader r) {
        try {
            return r.readLine();
        } catch (IOException e) {
            return null;
        }
    }

    static CompletableFuture<String> readAll(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return e.toString();
            }
        });
    }

    private static double number(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\"\\s*:\\s*([0-9.eE+-]+)").matcher(json);
        if (!m.find()) {
            throw new IllegalArgumentException("no \"" + key + "\" in iperf3's summary");
        }
        return Double.parseDouble(m.group(1));
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static boolean runs(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
