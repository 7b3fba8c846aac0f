package io.ferry.transport.ledbat.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.DatagramSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The UDP ceiling of this machine's loopback with the batching a UDP transport can use: a small C sender
 * and receiver ({@code udp_gso.c}, beside this class) moving 1472-byte segments with UDP GSO
 * ({@code UDP_SEGMENT}, 44 segments per send) and UDP GRO, built with the system's C compiler at first use
 * into {@code target/udp-gso/}. iperf3 sends one datagram per call; this is the fastest the kernel moves
 * uTP's and QUIC's datagrams, so both are compared with it too.
 */
final class GsoCeiling {
    static final String NAME = "udp-gso";

    private GsoCeiling() {
    }

    /** Whether a C compiler is there to build the tool (Linux only: GSO and GRO are Linux's). */
    static boolean isAvailable() {
        if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            return false;
        }
        try {
            Process p = new ProcessBuilder("cc", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** Sends {@code bytes} from one process to another over 127.0.0.1 and returns the receiver's figures. */
    static UdpCeilingResult run(long bytes) throws Exception {
        Path tool = build();
        int port;
        try (DatagramSocket probe = new DatagramSocket(0)) {
            port = probe.getLocalPort();
        }
        Process receiver = new ProcessBuilder(tool.toString(), "recv", String.valueOf(port)).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(receiver.getInputStream(), StandardCharsets.UTF_8));
            String ready = out.readLine();
            if (!"ready".equals(ready)) {
                throw new IllegalStateException("the udp_gso receiver did not start: " + ready + " " + errors(receiver));
            }
            Process sender = new ProcessBuilder(tool.toString(), "send", String.valueOf(port), String.valueOf(bytes)).start();
            double[] sent = figures(new BufferedReader(new InputStreamReader(sender.getInputStream(), StandardCharsets.UTF_8)).readLine(),
                    sender);
            if (!sender.waitFor(60, TimeUnit.SECONDS) || sender.exitValue() != 0) {
                throw new IllegalStateException("the udp_gso sender failed: " + errors(sender));
            }
            double[] received = figures(out.readLine(), receiver);
            receiver.waitFor(30, TimeUnit.SECONDS);
            double lost = 100.0 * Math.max(0, sent[0] - received[0]) / sent[0];
            return new UdpCeilingResult((long) received[0], received[1], received[2] + sent[2], lost);
        } finally {
            receiver.destroy();
        }
    }

    private static double[] figures(String line, Process p) throws IOException {
        if (line == null) {
            throw new IllegalStateException("udp_gso printed nothing: " + errors(p));
        }
        String[] f = line.trim().split("\\s+");
        return new double[]{Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2])};
    }

    private static String errors(Process p) throws IOException {
        return new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    }

    /** Compiles the tool unless a build of the same source is there. */
    private static synchronized Path build() throws IOException, InterruptedException {
        byte[] source;
        try (InputStream in = GsoCeiling.class.getResourceAsStream("udp_gso.c")) {
            if (in == null) {
                throw new IllegalStateException("udp_gso.c is missing beside " + GsoCeiling.class.getName());
            }
            source = in.readAllBytes();
        }
        Path dir = Path.of("target", "udp-gso", Integer.toHexString(java.util.Arrays.hashCode(source)));
        Path tool = dir.resolve("udp_gso");
        if (Files.isExecutable(tool)) {
            return tool;
        }
        Files.createDirectories(dir);
        Path c = dir.resolve("udp_gso.c");
        Files.write(c, source);
        Process cc = new ProcessBuilder(List.of("cc", "-O2", "-o", tool.toString(), c.toString())).redirectErrorStream(true).start();
        String log = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!cc.waitFor(60, TimeUnit.SECONDS) || cc.exitValue() != 0) {
            throw new IllegalStateException("cc could not build udp_gso: " + log);
        }
        return tool;
    }
}
