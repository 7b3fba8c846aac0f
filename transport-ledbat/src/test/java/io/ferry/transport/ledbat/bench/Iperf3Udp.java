package io.ferry.transport.ledbat.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The UDP ceiling of this machine's loopback, measured by Debian's {@code iperf3}: one unlimited-rate
 * UDP flow of 1472-byte datagrams (a 1500-byte MTU's largest), reported at the receiver.
 */
final class Iperf3Udp {
    static final String NAME = "iperf3-udp";

    private Iperf3Udp() {
    }

    static boolean isInstalled() {
        try {
            Process p = new ProcessBuilder("iperf3", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** Runs a server for one test and a client against it on 127.0.0.1 for {@code seconds}. */
    static UdpCeilingResult run(int seconds) throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        Process server = new ProcessBuilder("iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", String.valueOf(port))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            String json = null;
            for (int attempt = 0; attempt < 50 && json == null; attempt++) {
                Thread.sleep(100); // until the server listens
                Process client = new ProcessBuilder(List.of("iperf3", "-c", "127.0.0.1", "-p", String.valueOf(port), "-u",
                        "-b", "0", "-l", "1472", "-t", String.valueOf(seconds), "-J")).redirectErrorStream(true).start();
                String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (client.waitFor(seconds + 30L, TimeUnit.SECONDS) && client.exitValue() == 0) {
                    json = out;
                } else if (!out.contains("Connection refused") && !out.contains("unable to connect")) {
                    throw new IllegalStateException("iperf3 client failed: " + out);
                }
            }
            if (json == null) {
                throw new IllegalStateException("the iperf3 server did not start on port " + port);
            }
            return parse(json);
        } finally {
            server.destroy();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Reads the receiver's figures from iperf3's JSON ({@code end.sum_received}, or {@code end.sum} less the loss). */
    static UdpCeilingResult parse(String json) {
        Matcher endSection = Pattern.compile("\"end\"\\s*:\\s*\\{").matcher(json);
        if (!endSection.find()) {
            throw new IllegalStateException("no end section in iperf3's output: " + json);
        }
        String tail = json.substring(endSection.start());
        String received = section(tail, "sum_received");
        String sum = section(tail, "sum");
        double seconds = number(sum, "seconds");
        double lost = number(sum, "lost_percent");
        long bytes = received != null ? (long) number(received, "bytes") : (long) (number(sum, "bytes") * (1 - lost / 100));
        String cpu = section(tail, "cpu_utilization_percent");
        double cpuSeconds = (number(cpu, "host_total") + number(cpu, "remote_total")) / 100 * seconds;
        return new UdpCeilingResult(bytes, seconds, cpuSeconds, lost);
    }

    private static String section(String json, String name) {
        int at = json.indexOf("\"" + name + "\"");
        if (at < 0) {
            return null;
        }
        int open = json.indexOf('{', at);
        int close = json.indexOf('}', open);
        return json.substring(open, close + 1);
    }

    private static double number(String section, String field) {
        if (section == null) {
            throw new IllegalStateException("iperf3's output lacks the section holding " + field);
        }
        Matcher m = Pattern.compile("\"" + field + "\"\\s*:\\s*([-0-9.eE+]+)").matcher(section);
        if (!m.find()) {
            throw new IllegalStateException("iperf3's output lacks " + field + " in " + section);
        }
        return Double.parseDouble(m.group(1));
    }
}
