package io.ferry.transport.udt.bench;

import com.barchart.udt.SocketUDT;
import com.barchart.udt.TypeUDT;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.ferry.transport.udt.UdtChannelOption;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.util.ReferenceCountUtil;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Loopback throughput and CPU of Ferry's UDT next to barchart-udt used directly (the native UDT4: blocking
 * sockets, one thread per end), next to Ferry's uTP (the same engine) and Ferry's TCP, in one JVM,
 * alternating rounds; then a UDT buffer-size sweep from
 * 16 KiB to 64 MiB showing where Ferry's default (32 MiB) sits.
 *
 * <pre>
 * mvn -pl transport-udt -am test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.ferry.transport.udt.bench.UdtLoopbackBenchmark -Dexec.args="--size 256M --rounds 5 --sweep-seconds 5"
 * </pre>
 *
 * Both UDT variants use the same settings (Ferry's defaults). Writes {@code target/bench/udt-loopback.md}
 * and {@code .json}.
 */
public final class UdtLoopbackBenchmark {

    private static final int BLOCK = 1 << 20;
    private static final int[] SWEEP = {16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 32 << 20, 64 << 20};

    private record Run(String variant, long bytes, double seconds, double cpuSeconds) {
        double mibPerSecond() {
            return bytes / seconds / (1 << 20);
        }
    }

    public static void main(String[] args) throws Exception {
        long size = 256L << 20;
        int rounds = 5;
        int sweepSeconds = 5;
        boolean udpFollows = false;
        Path out = Path.of("target", "bench");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--size" -> size = Long.parseLong(args[++i].replaceAll("[Mm]$", "")) << 20;
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--sweep-seconds" -> sweepSeconds = Integer.parseInt(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--udp-follows" -> udpFollows = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; use --size 256M --rounds 5 --sweep-seconds 5 --out DIR");
            }
        }
        List<Run> compare = new ArrayList<>();
        Map<Integer, Double> sweep = new LinkedHashMap<>();
        try (Transports ferry = Transports.create()) {
            rawBarchart(64L << 20);
            ferry(ferry, "udt", 64L << 20, ChannelOptions.empty());
            ferry(ferry, "utp", 64L << 20, ChannelOptions.empty());
            ferry(ferry, "tcp", 64L << 20, ChannelOptions.empty());
            for (int r = 1; r <= rounds; r++) {
                for (Run run : List.of(rawBarchart(size), ferry(ferry, "udt", size, ChannelOptions.empty()),
                        ferry(ferry, "utp", size, ChannelOptions.empty()), ferry(ferry, "tcp", size, ChannelOptions.empty()))) {
                    compare.add(run);
                    System.out.printf(Locale.ROOT, "round %d %-16s %8.1f MiB/s  cpu %.2f s%n", r, run.variant(), run.mibPerSecond(), run.cpuSeconds());
                }
            }
            for (int buffer : SWEEP) {
                ChannelOptions.Builder sweepOptions = ChannelOptions.builder()
                        .set(UdtChannelOption.UDT_SEND_BUFFER, buffer).set(UdtChannelOption.UDT_RECEIVE_BUFFER, buffer);
                if (udpFollows) {
                    sweepOptions.set(UdtChannelOption.UDP_SEND_BUFFER, buffer).set(UdtChannelOption.UDP_RECEIVE_BUFFER, buffer);
                }
                ChannelOptions options = sweepOptions.build();
                double rate = steadyRate(ferry, options, sweepSeconds);
                sweep.put(buffer, rate);
                System.out.printf(Locale.ROOT, "sweep %8d KiB %8.1f MiB/s%n", buffer >> 10, rate);
            }
        }
        report(compare, sweep, size, rounds, sweepSeconds, out);
    }

    /** barchart-udt without Ferry: blocking sockets, a thread each, 1 MiB direct buffers. */
    private static Run rawBarchart(long size) throws Exception {
        SocketUDT listener = new SocketUDT(TypeUDT.STREAM);
        applyFerryDefaults(listener);
        listener.setBlocking(true);
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        listener.listen(1);
        CompletableFuture<Void> received = CompletableFuture.runAsync(() -> {
            try {
                SocketUDT peer = listener.accept();
                ByteBuffer in = ByteBuffer.allocateDirect(BLOCK);
                long got = 0;
                while (got < size) {
                    in.clear();
                    int n = peer.receive(in);
                    if (n > 0) {
                        got += n;
                    }
                }
                peer.send(ByteBuffer.allocateDirect(1).put((byte) 1).flip());
                peer.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        long cpu = cpuNanos();
        long start = System.nanoTime();
        SocketUDT client = new SocketUDT(TypeUDT.STREAM);
        applyFerryDefaults(client);
        client.setBlocking(true);
        client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalInetPort()));
        ByteBuffer block = ByteBuffer.allocateDirect(BLOCK);
        for (long sent = 0; sent < size; ) {
            block.clear().limit((int) Math.min(BLOCK, size - sent));
            while (block.hasRemaining()) {
                sent += Math.max(0, client.send(block));
            }
        }
        ByteBuffer ack = ByteBuffer.allocateDirect(1);
        while (client.receive(ack) <= 0) {
            Thread.onSpinWait();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        received.get(1, TimeUnit.MINUTES);
        client.close();
        listener.close();
        return new Run("barchart-udt raw", size, seconds, (cpuNanos() - cpu) / 1e9);
    }

    private static void applyFerryDefaults(SocketUDT socket) throws Exception {
        socket.setOption(com.barchart.udt.OptionUDT.UDT_MSS, 1500);
        socket.setOption(com.barchart.udt.OptionUDT.UDT_FC, 25_600);
        socket.setOption(com.barchart.udt.OptionUDT.UDT_SNDBUF, 32 << 20);
        socket.setOption(com.barchart.udt.OptionUDT.UDT_RCVBUF, 32 << 20);
        socket.setOption(com.barchart.udt.OptionUDT.UDP_SNDBUF, 4 << 20);
        socket.setOption(com.barchart.udt.OptionUDT.UDP_RCVBUF, 4 << 20);
    }

    /** Ferry on any scheme: the client pumps 1 MiB slices under writability; the server counts and acknowledges. */
    private static Run ferry(Transports ferry, String scheme, long size, ChannelOptions options) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        AtomicLong counted = new AtomicLong();
        Channel server = ferry.listen(scheme + "://127.0.0.1:0", counter(counted, size), options).sync().channel();
        ByteBuf block = PooledByteBufAllocator.DEFAULT.directBuffer(BLOCK).writeZero(BLOCK);
        long cpu = cpuNanos();
        long start = System.nanoTime();
        Channel client = ferry.connect(scheme + "://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort(),
                new Pump(block, size, done), options).sync().channel();
        done.get(10, TimeUnit.MINUTES);
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = (cpuNanos() - cpu) / 1e9;
        client.close().sync();
        server.close().sync();
        block.release();
        return new Run("ferry " + scheme, size, seconds, cpuSeconds);
    }

    /** Throughput after one second of warm-up, over {@code seconds}, with an endless sender. */
    private static double steadyRate(Transports ferry, ChannelOptions options, int seconds) throws Exception {
        AtomicLong counted = new AtomicLong();
        Channel server = ferry.listen("udt://127.0.0.1:0", counter(counted, Long.MAX_VALUE), options).sync().channel();
        ByteBuf block = PooledByteBufAllocator.DEFAULT.directBuffer(BLOCK).writeZero(BLOCK);
        Channel client = ferry.connect("udt://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort(),
                new Pump(block, Long.MAX_VALUE, new CompletableFuture<>()), options).sync().channel();
        Thread.sleep(1000);
        long before = counted.get();
        long start = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        double rate = (counted.get() - before) / ((System.nanoTime() - start) / 1e9) / (1 << 20);
        // the endless sender's queue would outlast any linger at the small sizes: the measurement is over, abort
        io.ferry.transport.FerryChannels.abort(client).sync();
        server.close().sync();
        block.release();
        return rate;
    }

    private static ChannelInitializer<Channel> counter(AtomicLong counted, long size) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        long total = counted.addAndGet(((ByteBuf) msg).readableBytes());
                        ReferenceCountUtil.release(msg);
                        if (total == size) {
                            ctx.writeAndFlush(ctx.alloc().buffer(1).writeByte(1));
                        }
                    }
                });
            }
        };
    }

    private static final class Pump extends ChannelInboundHandlerAdapter {
        private final ByteBuf block;
        private final long size;
        private final CompletableFuture<Void> done;
        private long queued;

        Pump(ByteBuf block, long size, CompletableFuture<Void> done) {
            this.block = block;
            this.size = size;
            this.done = done;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            pump(ctx);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            pump(ctx);
        }

        private void pump(ChannelHandlerContext ctx) {
            while (queued < size && ctx.channel().isWritable()) {
                int n = (int) Math.min(BLOCK, size - queued);
                queued += n; // before write(): a writability event fired inside it re-enters pump()
                ctx.write(block.retainedSlice(0, n));
            }
            ctx.flush();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
            done.complete(null);
        }
    }

    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static void report(List<Run> compare, Map<Integer, Double> sweep, long size, int rounds, int sweepSeconds, Path out)
            throws Exception {
        Files.createDirectories(out);
        Map<String, List<Run>> by = new LinkedHashMap<>();
        compare.forEach(r -> by.computeIfAbsent(r.variant(), k -> new ArrayList<>()).add(r));
        StringBuilder md = new StringBuilder("# UDT loopback throughput, " + LocalDate.now() + "\n\n")
                .append(String.format(Locale.ROOT, "%d rounds of %d MiB, alternating, one JVM, %d cores, Java %s.%n%n",
                        rounds, size >> 20, Runtime.getRuntime().availableProcessors(), System.getProperty("java.version")))
                .append("| variant | median MiB/s | min–max MiB/s | median Mbit/s | CPU s per GiB |\n|---|---|---|---|---|\n");
        StringBuilder json = new StringBuilder("{\"size_bytes\":" + size + ",\"rounds\":" + rounds + ",\"compare\":{");
        Map<String, Double> medians = new LinkedHashMap<>();
        String sep = "";
        for (Map.Entry<String, List<Run>> e : by.entrySet()) {
            double[] rates = e.getValue().stream().mapToDouble(Run::mibPerSecond).sorted().toArray();
            double[] cpu = e.getValue().stream().mapToDouble(r -> r.cpuSeconds() / (r.bytes() / (double) (1L << 30))).sorted().toArray();
            double median = rates[rates.length / 2];
            medians.put(e.getKey(), median);
            md.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f–%.1f | %.0f | %.2f |%n", e.getKey(), median, rates[0],
                    rates[rates.length - 1], median * 8 * 1.048576, cpu[cpu.length / 2]));
            json.append(sep).append('"').append(e.getKey()).append("\":[");
            for (int i = 0; i < rates.length; i++) {
                json.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT, "%.1f", rates[i]));
            }
            json.append(']');
            sep = ",";
        }
        double udtOverRaw = medians.get("ferry udt") / medians.get("barchart-udt raw");
        double udtOverTcp = medians.get("ferry udt") / medians.get("ferry tcp");
        double udtOverUtp = medians.get("ferry udt") / medians.get("ferry utp");
        md.append(String.format(Locale.ROOT, "%nFerry UDT / raw barchart-udt: **%.2f**; Ferry UDT / Ferry uTP: **%.2f**; Ferry UDT / Ferry TCP: **%.2f**%n",
                        udtOverRaw, udtOverUtp, udtOverTcp))
                .append(String.format(Locale.ROOT, "%n## UDT buffer sweep (both UDT buffers, %d s steady state after 1 s)%n%n", sweepSeconds))
                .append("| UDT buffers | MiB/s |\n|---|---|\n");
        json.append(String.format(Locale.ROOT, "},\"ferry_udt_over_raw\":%.3f,\"ferry_udt_over_utp\":%.3f,\"ferry_udt_over_tcp\":%.3f,\"sweep_mib_per_s\":{",
                udtOverRaw, udtOverUtp, udtOverTcp));
        sep = "";
        for (Map.Entry<Integer, Double> e : sweep.entrySet()) {
            md.append(String.format(Locale.ROOT, "| %d KiB%s | %.1f |%n", e.getKey() >> 10, e.getKey() == 32 << 20 ? " (default)" : "", e.getValue()));
            json.append(sep).append(String.format(Locale.ROOT, "\"%d\":%.1f", e.getKey(), e.getValue()));
            sep = ",";
        }
        json.append("}}\n");
        Files.writeString(out.resolve("udt-loopback.md"), md, StandardCharsets.UTF_8);
        Files.writeString(out.resolve("udt-loopback.json"), json, StandardCharsets.UTF_8);
        System.out.println();
        System.out.print(md);
    }

    private UdtLoopbackBenchmark() {
    }
}
