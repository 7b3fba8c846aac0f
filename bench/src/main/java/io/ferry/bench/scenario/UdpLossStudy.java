package io.ferry.bench.scenario;

import io.ferry.bench.accuracy.PacedUdpSender;
import io.ferry.bench.accuracy.Route;
import io.ferry.bench.accuracy.UdpCounter;
import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.netns.Host;
import io.ferry.bench.netns.RootAccess;
import io.ferry.bench.netns.Topology;
import io.ferry.bench.report.Charts;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Study 4: datagram loss against datagram size (unpaced and paced) and against the send interval,
 * through a 100 Mbit/s link with a shallow queue and 1% random loss per IP packet. Through the TUN
 * emulator (root) the kernel fragments datagrams above 1472 bytes and every fragment meets the link
 * separately; without root the no-root UDP relay is used instead (no fragmentation, noted in the report).
 */
final class UdpLossStudy implements Study {

    static final long RATE = 100_000_000;
    static final long QUEUE = 64_000;
    static final double LOSS = 0.01;

    @Override
    public String id() {
        return "udp";
    }

    @Override
    public String title() {
        return "4. UDP datagram loss vs datagram size and send interval";
    }

    @Override
    public Optional<String> cannotRun() {
        return Optional.empty();
    }

    @Override
    public StudyResult run(StudyContext ctx) throws Exception {
        StudyResult result = StudyResult.of(this);
        LinkModel link = new LinkModel(LOSS, RATE, QUEUE, Duration.ofMillis(5), 4);
        int count = ctx.pick(500, 2_000, 2_000);
        List<Integer> sizes = ctx.pick(List.of(64, 1_024, 4_096),
                List.of(4, 64, 256, 512, 1_024, 1_472, 1_473, 2_048, 4_096, 8_192, 16_384),
                List.of(4, 16, 64, 128, 256, 512, 1_024, 1_472, 1_473, 2_048, 4_096, 8_192, 16_384, 32_768, 65_000));
        List<Long> intervalsMicros = ctx.pick(List.of(0L, 100L), List.of(0L, 5L, 10L, 20L, 50L, 100L, 200L, 500L, 1_000L),
                List.of(0L, 2L, 5L, 10L, 20L, 50L, 100L, 200L, 500L, 1_000L, 2_000L));
        List<Integer> intervalSizes = ctx.pick(List.of(1_024), List.of(1_024, 8_192), List.of(1_024, 8_192));
        boolean tun = RootAccess.available();
        String via = tun ? "TUN emulator between two namespaces (the kernel fragments datagrams above 1472 B; each fragment meets the link)"
                : "no-root UDP relay on loopback (" + RootAccess.missing().orElse("") + "): no IP fragmentation, so the size effect above the MTU is not reproduced";
        result.markdown().append(Units.f("Link: %s. Path: %s. %d datagrams per point; loss = 1 − received/attempted (a send the local kernel refuses counts as lost). "
                + "Paced = one datagram every 1.1 × its serialization time at the link rate.%n%n", link.describe(), via, count));
        result.data().put("link", link.describe());
        result.data().put("path", tun ? "tun" : "relay");
        result.data().put("datagrams_per_point", count);
        Topology topology = tun ? Topology.emulated(link, link.withSeed(5)) : null;
        Route route = tun ? Route.kernel() : Route.relay(link);
        try {
            Host client = tun ? topology.clientHost() : Host.loopback();
            Host server = tun ? topology.serverHost() : Host.loopback();
            List<double[]> unpaced = new ArrayList<>();
            List<double[]> paced = new ArrayList<>();
            StringBuilder table = new StringBuilder("| datagram size | IP packets | loss unpaced | loss paced | paced interval µs |\n|---|---|---|---|---|\n");
            for (int size : sizes) {
                double lossUnpaced = measure(client, server, route, size, count, 0);
                int fragments = (size + 8 + 1479) / 1480;
                long wireBytes = size + 8 + 20L * fragments;
                long interval = (long) (wireBytes * 8e9 / RATE * 1.1);
                double lossPaced = measure(client, server, route, size, count, interval);
                unpaced.add(new double[] {size, lossUnpaced * 100});
                paced.add(new double[] {size, lossPaced * 100});
                table.append(Units.f("| %d | %d | %.1f%% | %.1f%% | %.1f |%n", size, fragments, lossUnpaced * 100, lossPaced * 100, interval / 1e3));
                ctx.log().printf("  udp size %6d B: unpaced %.1f%%, paced %.1f%%%n", size, lossUnpaced * 100, lossPaced * 100);
            }
            result.markdown().append("**Loss vs datagram size**\n\n").append(table).append('\n');
            Map<String, List<double[]>> byInterval = new LinkedHashMap<>();
            StringBuilder t2 = new StringBuilder("| interval µs | " + String.join(" | ", intervalSizes.stream().map(s -> "loss, " + s + " B").toList())
                    + " |\n|---|" + "---|".repeat(intervalSizes.size()) + "\n");
            Map<Long, List<Double>> rows = new LinkedHashMap<>();
            for (int size : intervalSizes) {
                List<double[]> pts = new ArrayList<>();
                for (long micros : intervalsMicros) {
                    double loss = measure(client, server, route, size, count, micros * 1_000);
                    pts.add(new double[] {Math.max(micros, 1), loss * 100});
                    rows.computeIfAbsent(micros, k -> new ArrayList<>()).add(loss * 100);
                    ctx.log().printf("  udp size %6d B interval %5d µs: %.1f%%%n", size, micros, loss * 100);
                }
                byInterval.put(size + " B", pts);
            }
            rows.forEach((micros, losses) -> t2.append("| ").append(micros == 0 ? "0 (unpaced)" : micros).append(" | ")
                    .append(String.join(" | ", losses.stream().map(l -> Units.f("%.1f%%", l)).toList())).append(" |\n"));
            result.markdown().append("**Loss vs send interval**\n\n").append(t2).append('\n');
            result.data().put("loss_pct_vs_size_unpaced", unpaced);
            result.data().put("loss_pct_vs_size_paced", paced);
            result.data().put("loss_pct_vs_interval_us", byInterval);
            Charts.line(ctx.out().resolve("udp-size.png"), "UDP loss vs datagram size (" + link.describe() + ")", "datagram size (bytes)",
                    "loss %", List.of(new Charts.Series("unpaced", unpaced), new Charts.Series("paced", paced)), true, false);
            Charts.line(ctx.out().resolve("udp-interval.png"), "UDP loss vs send interval (interval 0 plotted at 1 µs)", "interval (µs)",
                    "loss %", Charts.series(byInterval), true, false);
            result.charts().add("udp-size.png");
            result.charts().add("udp-interval.png");
        } finally {
            route.close();
            if (topology != null) {
                topology.close();
            }
        }
        return result;
    }

    private static double measure(Host client, Host server, Route route, int size, int count, long intervalNanos) throws Exception {
        try (UdpCounter counter = UdpCounter.start(server)) {
            InetSocketAddress target = route.target(counter.address());
            long sent = client.call(() -> {
                try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(client.address()), 0))) {
                    socket.setSendBufferSize(4 << 20);
                    return PacedUdpSender.send(socket, target, size, count, intervalNanos);
                }
            });
            long seen = -1;
            while (counter.datagrams() != seen) {
                seen = counter.datagrams();
                Thread.sleep(150);
            }
            return sent == 0 ? 1 : 1 - counter.datagrams() / (double) count;
        }
    }
}
