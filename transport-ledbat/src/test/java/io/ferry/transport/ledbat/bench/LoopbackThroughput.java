package io.ferry.transport.ledbat.bench;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.Transports;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.util.ReferenceCountUtil;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Loopback bulk throughput of Ferry's uTP next to Ferry's TCP and QUIC, measured side by side in one JVM:
 * memory to memory (no files, no hashing), several rounds alternating the transports, reporting the
 * median, the spread, the uTP/TCP and uTP/QUIC ratios and the process CPU time per GiB moved
 * ({@code --schemes} picks the transports). The receiving and the
 * sending side have their own {@link Transports} (their own event loops), as two processes would. With
 * {@code --senders N} each round is N connections into one listener at once, each carrying its share
 * of {@code --size}, and the report shows the CPU time of each transport thread, so it shows whether
 * the listener's connections use every core; {@code --senders 1,16} runs both in every round (rows
 * {@code utp} and {@code utp x16}) and reports the ratio of the totals, measured side by side.
 *
 * <p>Where {@code iperf3} is installed (Debian's package), each round also runs the ceiling for a UDP
 * transport on this machine: {@code iperf3 -u -b 0 -l 1472} for {@code --iperf-seconds} (default 5) on
 * loopback, reported as the rate its receiver got (what the sender sent less what was lost) and the CPU
 * time of both iperf3 processes per GiB received; {@code --no-iperf} leaves it out. Where a C compiler is
 * there ({@code cc}), each round also runs the ceiling with the batching a UDP transport can use
 * ({@link GsoCeiling}: 1472-byte segments sent with UDP GSO and read with GRO, {@code --size} bytes), row
 * {@code udp-gso}; {@code --no-ceiling} leaves it out. Each round also runs Netty's QUIC codec on its own
 * ({@link NettyQuicRaw}, row {@code quic-netty}), so Ferry's {@code quic} row shows what its relay costs;
 * {@code --no-quic-netty} leaves it out.
 *
 * <pre>
 * mvn -pl transport-ledbat -am test-compile exec:java -Dexec.mainClass=io.ferry.transport.ledbat.bench.LoopbackThroughput \
 *     -Dexec.classpathScope=test -Dexec.args="--size 512M --rounds 5"
 * </pre>
 *
 * Writes {@code target/bench/loopback-throughput.json} and {@code .md}.
 */
public final class LoopbackThroughput {

    /** {@code firstDoneSeconds}: when the first of several connections had all its bytes acknowledged. */
    private record Sample(String scheme, long bytes, double seconds, double cpuSeconds, long retransmissions,
                          Map<String, Double> threadCpuSeconds, double firstDoneSeconds) {
        double mibPerSecond() {
            return bytes / seconds / (1 << 20);
        }

        double cpuSecondsPerGib() {
            return cpuSeconds / (bytes / (double) (1L << 30));
        }
    }

    public static void main(String[] args) throws Exception {
        long size = 512L << 20;
        int rounds = 5;
        List<Integer> senderCounts = List.of(1);
        List<String> schemes = List.of("tcp", "utp", "quic");
        Path out = Path.of("target", "bench");
        boolean iperf = Iperf3Udp.isInstalled();
        int iperfSeconds = 5;
        boolean ceiling = GsoCeiling.isAvailable();
        boolean rawQuic = NettyQuicRaw.isAvailable();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--size" -> size = parseSize(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--senders" -> senderCounts = java.util.Arrays.stream(args[++i].split(",")).map(String::trim)
                        .map(Integer::valueOf).toList();
                case "--no-iperf" -> iperf = false;
                case "--iperf-seconds" -> iperfSeconds = Integer.parseInt(args[++i]);
                case "--no-ceiling" -> ceiling = false;
                case "--no-quic-netty" -> rawQuic = false;
                case "--schemes" -> schemes = java.util.Arrays.stream(args[++i].split(",")).map(String::trim).toList();
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; use --size 512M --rounds 5 --senders 1[,16] --schemes tcp,utp,quic --iperf-seconds 5 --no-iperf --no-ceiling --no-quic-netty --out DIR");
            }
        }
        List<Sample> samples = new ArrayList<>();
        // the receiving and the sending side each get their own transports (event loops), as two processes would
        try (Transports receiving = Transports.create(); Transports sending = Transports.create()) {
            Transports[] ferry = {receiving, sending};
            for (String scheme : schemes) {
                for (int senders : senderCounts) {
                    run(ferry, scheme, Math.min(size, 256L << 20), senders); // warm-up: JIT and pools
                }
            }
            for (int r = 0; r < rounds; r++) {
                for (String scheme : schemes) {
                    for (int senders : senderCounts) {
                        Sample s = run(ferry, scheme, size, senders);
                        samples.add(s);
                        System.out.printf(Locale.ROOT, "round %d %-8s %8.1f MiB/s  cpu %.2f s/GiB  retransmissions %d  first/last done %.2f/%.2f s  threads %s%n",
                                r + 1, s.scheme(), s.mibPerSecond(), s.cpuSecondsPerGib(), s.retransmissions(),
                                s.firstDoneSeconds(), s.seconds(), threads(s));
                    }
                }
                if (iperf) {
                    samples.add(ceilingSample(r + 1, Iperf3Udp.NAME, Iperf3Udp.run(iperfSeconds)));
                }
                if (ceiling) {
                    samples.add(ceilingSample(r + 1, GsoCeiling.NAME, GsoCeiling.run(size)));
                }
                if (rawQuic) {
                    NettyQuicRaw.Result q = NettyQuicRaw.run(size);
                    Sample s = new Sample(NettyQuicRaw.NAME, q.bytes(), q.seconds(), q.cpuSeconds(), 0, Map.of(), q.seconds());
                    samples.add(s);
                    System.out.printf(Locale.ROOT, "round %d %s %8.1f MiB/s  cpu %.2f s/GiB%n", r + 1, NettyQuicRaw.NAME,
                            s.mibPerSecond(), s.cpuSecondsPerGib());
                }
            }
        }
        report(samples, size, rounds, senderCounts, out);
    }

    /** A UDP ceiling's round as a sample of its own row, printed as it comes. */
    private static Sample ceilingSample(int round, String name, UdpCeilingResult u) {
        Sample s = new Sample(name, u.bytesReceived(), u.seconds(), u.cpuSeconds(), 0, Map.of(), u.seconds());
        System.out.printf(Locale.ROOT, "round %d %s %8.1f MiB/s at the receiver (%.1f %% lost)  cpu %.2f s/GiB%n",
                round, name, s.mibPerSecond(), u.lostPercent(), s.cpuSecondsPerGib());
        return s;
    }

    /** A loopback URI for a row's scheme, which may carry a query ({@code quic?streams=4}). */
    private static String uri(String scheme, int port) {
        int q = scheme.indexOf('?');
        return q < 0 ? scheme + "://127.0.0.1:" + port : scheme.substring(0, q) + "://127.0.0.1:" + port + scheme.substring(q);
    }

    private static Sample run(Transports[] ferry, String scheme, long size, int senders) throws Exception {
        long each = size / senders;
        Channel server = ferry[0].listen(uri(scheme, 0), new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    long count;

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        count += ((ByteBuf) msg).readableBytes();
                        ReferenceCountUtil.release(msg);
                        if (count == each) {
                            ctx.writeAndFlush(ctx.alloc().buffer(1).writeByte(1));
                        }
                    }
                });
            }
        }).sync().channel();
        ByteBuf block = PooledByteBufAllocator.DEFAULT.directBuffer(1 << 20);
        byte[] random = new byte[1 << 20];
        new SplittableRandom(1).nextBytes(random);
        block.writeBytes(random);
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        Map<Long, Long> threadsBefore = threadCpuNanos();
        long cpuBefore = processCpuNanos();
        long start = System.nanoTime();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        CompletableFuture<Long> firstDone = new CompletableFuture<>();
        List<Channel> clients = new ArrayList<>();
        for (int i = 0; i < senders; i++) {
            CompletableFuture<Void> acknowledged = new CompletableFuture<>();
            done.add(acknowledged);
            clients.add(ferry[1].connect(uri(scheme, port), new ChannelInboundHandlerAdapter() {
                long queued;

                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    pump(ctx);
                }

                @Override
                public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                    pump(ctx);
                }

                private void pump(ChannelHandlerContext ctx) {
                    while (queued < each && ctx.channel().isWritable()) {
                        int n = (int) Math.min(block.capacity(), each - queued);
                        queued += n; // before write(): a writability event fired inside it re-enters pump()
                        ctx.write(block.retainedSlice(0, n));
                    }
                    ctx.flush();
                }

                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ReferenceCountUtil.release(msg);
                    firstDone.complete(System.nanoTime());
                    acknowledged.complete(null);
                }
            }, ChannelOptions.empty()).sync().channel());
        }
        CompletableFuture.allOf(done.toArray(new CompletableFuture<?>[0])).get(10, TimeUnit.MINUTES);
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpu = (processCpuNanos() - cpuBefore) / 1e9;
        Map<String, Double> threads = threadCpuSecondsSince(threadsBefore);
        long retransmissions = 0;
        for (Channel client : clients) {
            TransportStatistics stats = FerryChannels.statistics(client);
            retransmissions += stats.retransmissions().orElse(0);
            client.close().sync();
        }
        server.close().sync();
        block.release();
        return new Sample(label(scheme, senders), each * senders, seconds, cpu, retransmissions, threads, (firstDone.join() - start) / 1e9);
    }

    /** A sample's row: the scheme, and with more than one connection how many ({@code utp x16}). */
    private static String label(String scheme, int senders) {
        return senders == 1 ? scheme : scheme + " x" + senders;
    }

    private static Map<Long, Long> threadCpuNanos() {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<Long, Long> cpu = new LinkedHashMap<>();
        for (long id : mx.getAllThreadIds()) {
            long t = mx.getThreadCpuTime(id);
            if (t >= 0) {
                cpu.put(id, t);
            }
        }
        return cpu;
    }

    /** CPU seconds of each Ferry transport thread (named {@code ferry-...}) since {@code before}. */
    private static Map<String, Double> threadCpuSecondsSince(Map<Long, Long> before) {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<String, Double> cpu = new java.util.TreeMap<>();
        for (java.lang.management.ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (info == null || !info.getThreadName().startsWith("ferry-")) {
                continue;
            }
            long now = mx.getThreadCpuTime(info.getThreadId());
            if (now >= 0) {
                cpu.put(info.getThreadName(), (now - before.getOrDefault(info.getThreadId(), 0L)) / 1e9);
            }
        }
        return cpu;
    }

    private static String threads(Sample s) {
        StringBuilder b = new StringBuilder();
        s.threadCpuSeconds().forEach((name, sec) -> {
            if (sec >= 0.05) {
                b.append(b.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%s %.1f s", name, sec));
            }
        });
        return b.toString();
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static void report(List<Sample> samples, long size, int rounds, List<Integer> senderCounts, Path out) throws Exception {
        Files.createDirectories(out);
        Map<String, List<Sample>> by = new LinkedHashMap<>();
        for (Sample s : samples) {
            by.computeIfAbsent(s.scheme(), k -> new ArrayList<>()).add(s);
        }
        StringBuilder md = new StringBuilder();
        md.append("# Loopback bulk throughput, ").append(LocalDate.now()).append("\n\n")
                .append(String.format(Locale.ROOT, "%d rounds of %d MiB per transport over %s connection(s) into one listener, alternating, one JVM, %d cores, Java %s.%n%n",
                        rounds, size >> 20, senderCounts.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(" and ")), Runtime.getRuntime().availableProcessors(), System.getProperty("java.version")))
                .append("| transport | median MiB/s | min–max MiB/s | median Mbit/s | CPU s per GiB (both ends) | CPU s per transport thread (median round) |\n|---|---|---|---|---|---|\n");
        StringBuilder json = new StringBuilder("{\"size_bytes\":" + size + ",\"rounds\":" + rounds + ",\"senders\":" + senderCounts + ",\"results\":{");
        Map<String, Double> medians = new LinkedHashMap<>();
        Map<String, Double> cpuMedians = new LinkedHashMap<>();
        boolean first = true;
        for (Map.Entry<String, List<Sample>> e : by.entrySet()) {
            double[] rates = e.getValue().stream().mapToDouble(Sample::mibPerSecond).sorted().toArray();
            double[] cpu = e.getValue().stream().mapToDouble(Sample::cpuSecondsPerGib).sorted().toArray();
            double median = rates[rates.length / 2];
            medians.put(e.getKey(), median);
            cpuMedians.put(e.getKey(), cpu[cpu.length / 2]);
            Sample middle = e.getValue().stream().sorted(java.util.Comparator.comparingDouble(Sample::mibPerSecond))
                    .toList().get(rates.length / 2);
            md.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f–%.1f | %.0f | %.2f | %s |%n", e.getKey(), median, rates[0],
                    rates[rates.length - 1], median * 8 * 1.048576, cpu[cpu.length / 2], threads(middle)));
            json.append(first ? "" : ",").append('"').append(e.getKey()).append("\":{\"mib_per_s\":[");
            for (int i = 0; i < rates.length; i++) {
                json.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT, "%.2f", rates[i]));
            }
            json.append("],\"cpu_s_per_gib_median\":").append(String.format(Locale.ROOT, "%.3f", cpu[cpu.length / 2])).append('}');
            first = false;
        }
        json.append("}");
        ratio(md, json, medians, "utp", "tcp", "uTP/TCP ratio of medians", "utp_over_tcp");
        ratio(md, json, medians, "utp", "quic", "uTP / QUIC (Netty's codec, quiche) ratio of medians", "utp_over_quic");
        ratio(md, json, cpuMedians, "utp", "quic", "uTP / QUIC CPU seconds per GiB, ratio of medians", "utp_over_quic_cpu");
        ratio(md, json, medians, "utp", NettyQuicRaw.NAME, "uTP / Netty's QUIC codec used directly, ratio of medians", "utp_over_quic_netty");
        ratio(md, json, cpuMedians, "utp", NettyQuicRaw.NAME, "uTP / Netty's QUIC codec used directly, CPU per GiB", "utp_over_quic_netty_cpu");
        ratio(md, json, medians, "quic", NettyQuicRaw.NAME, "Ferry's quic:// / Netty's QUIC codec used directly, ratio of medians", "quic_over_quic_netty");
        ratio(md, json, medians, "utp", Iperf3Udp.NAME, "uTP / iperf3 UDP receiver ratio of medians", "utp_over_iperf3_udp");
        ratio(md, json, medians, "utp", GsoCeiling.NAME, "uTP / UDP GSO+GRO ceiling, ratio of medians", "utp_over_udp_gso");
        ratio(md, json, medians, "quic", GsoCeiling.NAME, "QUIC / UDP GSO+GRO ceiling, ratio of medians", "quic_over_udp_gso");
        for (int senders : senderCounts) {
            String many = label("utp", senders);
            if (senders > 1 && medians.containsKey("utp") && medians.containsKey(many)) {
                // the total of N connections against one connection's rate, measured in the same rounds
                double ratio = medians.get(many) / medians.get("utp");
                md.append(String.format(Locale.ROOT, "%n%d uTP senders' total / one uTP sender, ratio of medians: **%.2f**%n", senders, ratio));
                json.append(String.format(Locale.ROOT, ",\"utp_x%d_over_utp\":%.3f", senders, ratio));
            }
        }
        json.append("}\n");
        Files.writeString(out.resolve("loopback-throughput.md"), md, StandardCharsets.UTF_8);
        Files.writeString(out.resolve("loopback-throughput.json"), json, StandardCharsets.UTF_8);
        System.out.println();
        System.out.print(md);
    }

    /** A line and a JSON field for {@code a / b} of two rows' medians, where both rows were measured. */
    private static void ratio(StringBuilder md, StringBuilder json, Map<String, Double> medians, String a, String b,
                              String what, String key) {
        if (medians.containsKey(a) && medians.containsKey(b)) {
            double ratio = medians.get(a) / medians.get(b);
            md.append(String.format(Locale.ROOT, "%n%s: **%.2f**%n", what, ratio));
            json.append(String.format(Locale.ROOT, ",\"%s\":%.3f", key, ratio));
        }
    }

    private static long parseSize(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        long unit = t.endsWith("G") ? 1L << 30 : t.endsWith("M") ? 1L << 20 : t.endsWith("K") ? 1L << 10 : 1;
        return Long.parseLong(unit == 1 ? t : t.substring(0, t.length() - 1)) * unit;
    }

    private LoopbackThroughput() {
    }
}
