package io.ferry.bench.transfer;

import io.ferry.bench.netns.NetworkNamespace;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ferry perf} as a user runs it between two hosts (the jar as child processes, the server in one
 * namespace and the client in the other), and iperf3's timed test on the same path for the ratio.
 */
public final class PerfRuns {

    private static final int IPERF_PORT = 5201;

    private PerfRuns() {
    }

    /**
     * One {@code ferry perf} run: the client's exit code, its JSON report (the last line of its standard
     * output that opens an object), and the run's wall time.
     */
    public record PerfRun(int exitCode, String json, double wallSeconds, String output) {
        public boolean ok() {
            return exitCode == 0 && json != null;
        }
    }

    /**
     * {@code ferry perf --server --once --bind SERVER} in the server's namespace, then
     * {@code ferry perf SERVER --json --chart CHART ARGS...} in the client's.
     */
    public static PerfRun ferryPerf(NetworkNamespace client, NetworkNamespace server, String serverAddress, Path chart,
                                    Duration timeout, String... clientArgs) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String jar = ReferenceTransfers.ferryJar().toString();
        Process listener = ReferenceTransfers.start(server, java, "-jar", jar, "perf", "--server", "--once", "--bind", serverAddress);
        try {
            ReferenceTransfers.awaitLine(listener, "serving tests", Duration.ofSeconds(30));
            List<String> command = new ArrayList<>(List.of(java, "-jar", jar, "perf", serverAddress, "--json", "--chart", chart.toString()));
            command.addAll(List.of(clientArgs));
            long began = System.nanoTime();
            Process perf = ReferenceTransfers.start(client, command.toArray(String[]::new));
            CompletableFuture<String> out = ReferenceTransfers.readAll(perf.getInputStream());
            if (!perf.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                perf.destroyForcibly();
                return new PerfRun(-1, null, timeout.toSeconds(), "timeout after " + timeout.toSeconds() + " s");
            }
            double wall = (System.nanoTime() - began) / 1e9;
            String all = out.get(10, TimeUnit.SECONDS);
            String json = null;
            for (String line : all.split("\n")) {
                if (line.startsWith("{")) {
                    json = line;
                }
            }
            return new PerfRun(perf.exitValue(), json, wall, all);
        } finally {
            listener.destroyForcibly();
            listener.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /**
     * {@code iperf3 -c SERVER -t SECONDS [-R] -C CC -J}: the kernel's TCP for the same seconds, in Mbit/s as
     * its receiver counted ({@code end.sum_received}); NaN if it failed.
     */
    public static double iperf3Mbps(NetworkNamespace client, NetworkNamespace server, String serverAddress, long seconds,
                                    boolean reverse, String congestionControl) throws Exception {
        Process listener = ReferenceTransfers.start(server, "iperf3", "-s", "-1", "--forceflush", "-B", serverAddress, "-p",
                Integer.toString(IPERF_PORT));
        try {
            ReferenceTransfers.awaitLine(listener, "Server listening", Duration.ofSeconds(10));
            List<String> command = new ArrayList<>(List.of("iperf3", "-c", serverAddress, "-p", Integer.toString(IPERF_PORT), "-t",
                    Long.toString(seconds), "-J"));
            if (reverse) {
                command.add("-R");
            }
            if (congestionControl != null) {
                command.addAll(List.of("-C", congestionControl));
            }
            Process sender = ReferenceTransfers.start(client, command.toArray(String[]::new));
            CompletableFuture<String> out = ReferenceTransfers.readAll(sender.getInputStream());
            if (!sender.waitFor(seconds + 30, TimeUnit.SECONDS)) {
                sender.destroyForcibly();
                return Double.NaN;
            }
            Matcher received = Pattern.compile("\"sum_received\"\\s*:\\s*\\{([^}]*)}").matcher(out.get(10, TimeUnit.SECONDS));
            if (sender.exitValue() != 0 || !received.find()) {
                return Double.NaN;
            }
            Matcher bps = Pattern.compile("\"bits_per_second\"\\s*:\\s*([0-9.eE+-]+)").matcher(received.group(1));
            return bps.find() ? Double.parseDouble(bps.group(1)) / 1e6 : Double.NaN;
        } finally {
            listener.destroyForcibly();
            listener.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
