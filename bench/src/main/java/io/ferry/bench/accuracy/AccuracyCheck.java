package io.ferry.bench.accuracy;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.netns.Host;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Checks that an emulated link does what its {@link LinkModel} asks, with real UDP (and, where the
 * route carries it, TCP) traffic between two hosts:
 *
 * <ul>
 *   <li>RTT: the median of UDP ping-pongs (and of TCP handshakes) against twice the one-way delay plus
 *       the serialization time of the probe both ways;</li>
 *   <li>rate: the arrival rate of a UDP flow offered at 1.5× the link rate, which keeps the drop-tail
 *       queue full so the link drains at exactly its rate;</li>
 *   <li>loss: the fraction of datagrams lost from a flow paced at half the link rate (so the queue
 *       never overflows), against the loss rate.</li>
 * </ul>
 *
 * Loss is applied to both directions in the model; the loss check uses one direction only.
 */
public final class AccuracyCheck {

    /** Relative tolerance of RTT and rate. */
    public static final double RELATIVE_TOLERANCE = 0.05;
    /** Absolute tolerance of the loss rate (a fraction: 0.015 is 1.5 percentage points). */
    public static final double LOSS_TOLERANCE = 0.015;

    private static final int PING_BYTES = 64;
    private static final int RATE_BYTES = 1_200;
    private static final int LOSS_BYTES = 200;

    private final Host client;
    private final Host server;
    private final Route route;
    private final LinkModel model;
    private final double seconds;

    /**
     * @param client  where the probes are sent from
     * @param server  where they are received
     * @param route   how the client reaches the server through the link
     * @param model   the model both directions of the link apply (a rate limit is required)
     * @param seconds roughly how long the rate check sends; the loss check sends about as long
     */
    public AccuracyCheck(Host client, Host server, Route route, LinkModel model, double seconds) {
        if (!model.limited()) {
            throw new IllegalArgumentException("the accuracy check needs a rate-limited link model");
        }
        this.client = client;
        this.server = server;
        this.route = route;
        this.model = model;
        this.seconds = seconds;
    }

    /** Runs every check and returns the measurements. */
    public List<Measurement> run() throws Exception {
        List<Measurement> results = new ArrayList<>();
        results.add(udpRtt());
        if (route.carriesTcp()) {
            results.add(tcpHandshakeRtt());
        }
        results.add(rate());
        results.add(loss());
        return results;
    }

    private double serializationMillis(int bytes) {
        return bytes * 8e3 / model.rateBitsPerSecond();
    }

    private Measurement udpRtt() throws Exception {
        double oneWay = model.oneWayDelay().toNanos() / 1e6;
        double expected = 2 * oneWay + 2 * serializationMillis(PING_BYTES + route.overheadBytes());
        int pings = 40;
        try (UdpEcho echo = UdpEcho.start(server)) {
            InetSocketAddress target = route.target(echo.address());
            double[] rtts = client.call(() -> {
                try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(client.address()), 0))) {
                    socket.setSoTimeout((int) Math.max(200, expected * 3));
                    List<Double> samples = new ArrayList<>();
                    byte[] out = new byte[PING_BYTES];
                    byte[] in = new byte[PING_BYTES];
                    for (int i = 0; i < pings; i++) {
                        out[0] = (byte) i;
                        long start = System.nanoTime();
                        socket.send(new DatagramPacket(out, out.length, target));
                        try {
                            while (true) {
                                DatagramPacket reply = new DatagramPacket(in, in.length);
                                socket.receive(reply);
                                if (in[0] == out[0]) {
                                    samples.add((System.nanoTime() - start) / 1e6);
                                    break;
                                }
                            }
                        } catch (SocketTimeoutException lost) {
                            continue;
                        }
                        Thread.sleep(10);
                    }
                    return samples.stream().mapToDouble(Double::doubleValue).toArray();
                }
            });
            return new Measurement("RTT, median of " + rtts.length + " UDP ping-pongs", "ms", expected, median(rtts),
                    RELATIVE_TOLERANCE, true);
        }
    }

    private Measurement tcpHandshakeRtt() throws Exception {
        double oneWay = model.oneWayDelay().toNanos() / 1e6;
        double expected = 2 * oneWay + serializationMillis(60 + 60);
        try (ServerSocket listener = server.call(() -> new ServerSocket(0, 50, InetAddress.getByName(server.address())))) {
            InetSocketAddress target = new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort());
            double[] samples = client.call(() -> {
                double[] s = new double[15];
                for (int i = 0; i < s.length; i++) {
                    try (Socket socket = new Socket()) {
                        long start = System.nanoTime();
                        socket.connect(target, 10_000);
                        s[i] = (System.nanoTime() - start) / 1e6;
                    }
                }
                return s;
            });
            return new Measurement("RTT, median of " + samples.length + " TCP handshakes", "ms", expected, median(samples),
                    RELATIVE_TOLERANCE, true);
        }
    }

    private Measurement rate() throws Exception {
        double expected = model.rateBitsPerSecond();
        int wire = RATE_BYTES + route.overheadBytes();
        long interval = (long) (wire * 8e9 / (expected * 1.5));
        long count = (long) (seconds * 1e9 / interval);
        try (UdpCounter counter = UdpCounter.start(server)) {
            InetSocketAddress target = route.target(counter.address());
            sendFromClient(target, RATE_BYTES, count, interval);
            settle(counter);
            return new Measurement("rate, UDP flow offered at 1.5x", "Mbit/s", expected / 1e6,
                    counter.arrivalRateBitsPerSecond(route.overheadBytes()) / 1e6, RELATIVE_TOLERANCE, true);
        }
    }

    private Measurement loss() throws Exception {
        int wire = LOSS_BYTES + route.overheadBytes();
        long interval = (long) (wire * 8e9 / (model.rateBitsPerSecond() * 0.5));
        long count = Math.max(5_000, Math.min(20_000, (long) (seconds * 1e9 / interval)));
        try (UdpCounter counter = UdpCounter.start(server)) {
            InetSocketAddress target = route.target(counter.address());
            long sent = sendFromClient(target, LOSS_BYTES, count, interval);
            settle(counter);
            double lost = 1 - counter.datagrams() / (double) sent;
            return new Measurement("loss, " + sent + " UDP datagrams paced at half the rate", "%", model.lossRate() * 100,
                    lost * 100, LOSS_TOLERANCE * 100, false);
        }
    }

    private long sendFromClient(InetSocketAddress target, int size, long count, long interval) throws Exception {
        return client.call(() -> {
            try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(client.address()), 0))) {
                socket.setSendBufferSize(1 << 20);
                return PacedUdpSender.send(socket, target, size, count, interval);
            }
        });
    }

    /** Waits until the queue and the delay line have emptied: no new arrival for a while. */
    private void settle(UdpCounter counter) throws InterruptedException {
        long quiet = Math.max(300, 3 * model.oneWayDelay().toMillis()
                + (long) (model.queueBytes() * 8e3 / model.rateBitsPerSecond()));
        long last = -1;
        while (counter.datagrams() != last) {
            last = counter.datagrams();
            Thread.sleep(quiet);
        }
    }

    private static double median(double[] values) {
        if (values.length == 0) {
            throw new IllegalStateException("no samples: every probe was lost");
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** Formats measurements as a Markdown table. */
    public static String markdown(List<Measurement> results) {
        StringBuilder s = new StringBuilder("| check | asked | measured | deviation | result |\n|---|---|---|---|---|\n");
        for (Measurement m : results) {
            s.append(String.format(java.util.Locale.ROOT, "| %s | %.3f %s | %.3f %s | %s | %s |%n", m.name(), m.expected(), m.unit(),
                    m.measured(), m.unit(), m.deviation(), m.passed() ? "pass" : "FAIL"));
        }
        return s.toString();
    }

}
