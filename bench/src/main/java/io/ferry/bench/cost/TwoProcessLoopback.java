package io.ferry.bench.cost;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.Transports;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a transport costs between two processes on loopback, as a user's two programs see it: a fresh
 * receiver JVM and a fresh sender JVM move {@code --size} through Ferry's public API (a writer driven by
 * writability on the event loop, 64 KiB buffers; a reader that counts and releases), and each reports its
 * own CPU time after the first GiB and at the end. Rows: every transport asked for, and native UDT4
 * (Debian's libudt 4.11 in two C++ processes, {@code udt4_peer count} / {@code blast}) where the peer is
 * built. Printed per row: the rate and the CPU-seconds per GiB (sender + receiver) past the first GiB,
 * and the first GiB's rate and CPU.
 *
 * <pre>java -cp bench/target/benchmarks.jar io.ferry.bench.cost.TwoProcessLoopback [--size 4G] [--rounds 1]
 *     [--transports tcp,utp,udt] [--native PATH_TO_udt4_peer] [--connections 1] [--warmup 0] [--warmup-connections 1] [--cc NAME] [--jvm-args "..."]</pre>
 * {@code --cc NAME}: the sender's congestion control ({@code FerryChannelOption.CONGESTION_CONTROL}) on every
 * Java row instead of the transport's default.
 * {@code --warmup SIZE}: both processes first move SIZE over a connection of their own, unmeasured, so that
 * the measured transfer's first GiB starts with the JIT's code warm and only its connection new (the first
 * GiB's figures then count from the warm-up's end, JVM start excluded).
 * {@code --warmup-connections K}: the warm-up's SIZE over K connections one after the other, so that the JIT
 * has also seen connections end and begin before the measured one starts (with one, the measured connection's
 * start and the warm-up's end still make C2 recompile during the measurement).
 * {@code --connections N}: N concurrent connections into the one listener, each moving its share (the
 * figures are the aggregate).
 * {@code --jvm-args} (space-separated) go to both Java processes: a profiler, JIT logging, an AOT cache;
 * {@code {role}} in them becomes {@code send} or {@code receive}, so that each process writes its own file
 * ({@code -XX:AOTCacheOutput=/tmp/ferry-{role}.aot}, a JFR recording on JDK 17, which has no {@code %p}).
 */
public final class TwoProcessLoopback {

    static final long GIB = 1L << 30;
    static final int CHUNK = 64 * 1024;

    /**
     * One side's marks: bytes, monotonic nanos (CLOCK_MONOTONIC, shared by the processes) and its own CPU
     * nanos after the first GiB and at the end; {@code start} is when the sender was launched (or ended its
     * warm-up) and {@code cpuBase} this side's CPU nanos then (0, or at the end of its warm-up).
     */
    record Marks(long[] first, long[] end, long start, long cpuBase) {
    }

    public static void main(String[] args) throws Exception {
        long size = 4 * GIB;
        int rounds = 1;
        List<String> transports = List.of("tcp", "utp", "udt");
        String nativePeer = null;
        List<String> jvmArgs = List.of();
        int connections = 1;
        long warmup = 0;
        int warmupConnections = 1;
        String cc = "";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--size" -> size = parseSize(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--transports" -> transports = List.of(args[++i].split(","));
                case "--native" -> nativePeer = args[++i];
                case "--connections" -> connections = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = parseSize(args[++i]);
                case "--warmup-connections" -> warmupConnections = Integer.parseInt(args[++i]);
                case "--cc" -> cc = args[++i];
                case "--jvm-args" -> jvmArgs = List.of(args[++i].trim().split("\\s+"));
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (size <= GIB) {
            throw new IllegalArgumentException("--size must be over 1 GiB: the figures are past the first GiB");
        }
        System.out.printf(Locale.ROOT, "%-12s %16s %20s %16s %14s%n", "", "Mbit/s past 1 GiB", "CPU-s/GiB past 1 GiB",
                "first GiB Mbit/s", "first GiB CPU-s");
        for (int r = 0; r < rounds; r++) {
            for (String t : transports) {
                report(connections == 1 ? t : t + " x" + connections, java(t, size, connections, warmup, warmupConnections, cc, jvmArgs));
            }
            if (nativePeer != null && Files.isExecutable(Path.of(nativePeer))) {
                report("native UDT4", cpp(nativePeer, size));
            }
        }
    }

    private static void report(String name, Marks[] sides) {
        Marks receiver = sides[0];
        Marks sender = sides[1];
        double pastSeconds = (receiver.end[1] - receiver.first[1]) / 1e9;
        double pastGib = (receiver.end[0] - receiver.first[0]) / (double) GIB;
        double pastCpu = ((receiver.end[2] - receiver.first[2]) + (sender.end[2] - sender.first[2])) / 1e9;
        double firstSeconds = (receiver.first[1] - receiver.start) / 1e9;
        double firstCpu = (receiver.first[2] - receiver.cpuBase + sender.first[2] - sender.cpuBase) / 1e9;
        System.out.printf(Locale.ROOT, "%-12s %16.0f %20.2f %16.0f %14.2f%n", name,
                pastGib * GIB * 8 / pastSeconds / 1e6, pastCpu / pastGib, receiver.first[0] * 8 / firstSeconds / 1e6, firstCpu);
        if (System.getenv("FERRY_BENCH_STATS") != null) {
            System.out.printf(Locale.ROOT, "%s CPU-s/GiB past 1 GiB: sender %.2f, receiver %.2f%n", name,
                    (sender.end[2] - sender.first[2]) / 1e9 / pastGib, (receiver.end[2] - receiver.first[2]) / 1e9 / pastGib);
        }
    }

    // ------------------------------------------------------------------ the two processes

    private static Marks[] java(String scheme, long size, int connections, long warmup, int warmupConnections, String cc,
                                List<String> jvmArgs) throws Exception {
        Process receiver = new ProcessBuilder(javaCommand(jvmArgs, Receive.class, scheme, Integer.toString(connections),
                Long.toString(warmup), Integer.toString(warmupConnections))).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader rin = reader(receiver);
        String port = rin.readLine();
        while (port != null && !port.startsWith("PORT ") && !jvmArgs.isEmpty()) {
            port = rin.readLine(); // what a profiler or a log asked for in --jvm-args printed first
        }
        if (port == null || !port.startsWith("PORT ")) {
            throw new IllegalStateException(scheme + " receiver: " + port + " (its standard error is above)");
        }
        long start = System.nanoTime();
        Process sender = new ProcessBuilder(javaCommand(jvmArgs, Send.class, scheme, port.substring(5), Long.toString(size),
                Integer.toString(connections), Long.toString(warmup), cc, Integer.toString(warmupConnections)))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        if (warmup == 0) {
            return marks(rin, reader(sender), receiver, sender, scheme, start);
        }
        BufferedReader sin = reader(sender);
        long[] senderWarm = read(sin, scheme);
        long[] receiverWarm = read(rin, scheme);
        Marks[] m = marks(rin, sin, receiver, sender, scheme, senderWarm[1]);
        // the first GiB's CPU counts from each side's warm-up end
        return new Marks[]{new Marks(m[0].first(), m[0].end(), m[0].start(), receiverWarm[2]),
                new Marks(m[1].first(), m[1].end(), m[1].start(), senderWarm[2])};
    }

    private static List<String> javaCommand(List<String> jvmArgs, Class<?> main, String... args) {
        List<String> command = new java.util.ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String role = main == Send.class ? "send" : "receive";
        for (String arg : jvmArgs) {
            command.add(arg.replace("{role}", role));
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        return command;
    }

    private static Marks[] cpp(String peer, long size) throws Exception {
        Process receiver = new ProcessBuilder(peer, "count", "4").start();
        BufferedReader rin = reader(receiver);
        String port = rin.readLine();
        long start = System.nanoTime();
        Process sender = new ProcessBuilder(peer, "blast", "4", port.substring(5).trim(), Long.toString(size)).start();
        return marks(rin, reader(sender), receiver, sender, "native UDT4", start);
    }

    private static Marks[] marks(BufferedReader rin, BufferedReader sin, Process receiver, Process sender, String name, long start)
            throws Exception {
        long[][] r = {read(rin, name), read(rin, name)};
        long[][] s = {read(sin, name), read(sin, name)};
        sender.waitFor(60, TimeUnit.SECONDS);
        receiver.waitFor(60, TimeUnit.SECONDS);
        sender.destroyForcibly();
        receiver.destroyForcibly();
        return new Marks[]{new Marks(r[0], r[1], start, 0), new Marks(s[0], s[1], start, 0)};
    }

    private static long[] read(BufferedReader in, String name) throws Exception {
        for (String line; (line = in.readLine()) != null; ) {
            if (line.startsWith("MARK ")) {
                String[] f = line.split(" ");
                return new long[]{Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3])};
            }
        }
        throw new IllegalStateException(name + ": a process ended before its mark");
    }

    private static BufferedReader reader(Process p) {
        return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII));
    }

    static long parseSize(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        long unit = t.endsWith("G") ? GIB : t.endsWith("M") ? 1L << 20 : 1;
        return Long.parseLong(unit == 1 ? t : t.substring(0, t.length() - 1)) * unit;
    }

    static void mark(long bytes) {
        long cpu = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
        System.out.println("MARK " + bytes + " " + System.nanoTime() + " " + cpu);
        System.out.flush();
    }

    /** The receiving process: listens, counts over all connections, marks the first GiB and the end of the last stream. */
    public static final class Receive {
        public static void main(String[] args) throws Exception {
            int connections = args.length > 1 ? Integer.parseInt(args[1]) : 1;
            boolean warming = args.length > 2 && Long.parseLong(args[2]) > 0;
            int warmConnections = warming ? (args.length > 3 ? Integer.parseInt(args[3]) : 1) : 0;
            AtomicInteger warmStarted = new AtomicInteger();
            AtomicInteger warmEnded = new AtomicInteger();
            Set<Channel> warm = ConcurrentHashMap.newKeySet(); // the sender's first connections are its warm-up
            CountDownLatch ended = new CountDownLatch(connections);
            AtomicLong total = new AtomicLong();
            try (Transports ferry = Transports.create()) {
                ChannelHandler counter = new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        if (warmStarted.getAndIncrement() < warmConnections) {
                            warm.add(ctx.channel());
                        }
                        ctx.fireChannelActive();
                    }

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        int n = ((ByteBuf) msg).readableBytes();
                        ReferenceCountUtil.release(msg);
                        if (!warm.isEmpty() && warm.contains(ctx.channel())) {
                            return;
                        }
                        long after = total.addAndGet(n);
                        if (after - n < GIB && after >= GIB) {
                            mark(after);
                        }
                        if (System.getenv("FERRY_BENCH_STATS") != null && after / GIB != (after - n) / GIB) {
                            System.err.println("receiver at " + after / GIB + " GiB " + io.ferry.transport.FerryChannels.statistics(ctx.channel()));
                        }
                    }

                    @Override
                    public void channelInactive(ChannelHandlerContext ctx) {
                        if (warm.remove(ctx.channel())) {
                            if (warmEnded.incrementAndGet() == warmConnections) {
                                mark(0);
                            }
                            return;
                        }
                        synchronized (ended) {
                            ended.countDown();
                            if (ended.getCount() == 0) {
                                mark(total.get());
                            }
                        }
                    }

                    @Override
                    public boolean isSharable() {
                        return true;
                    }
                };
                Channel listener = ferry.listen(args[0] + "://127.0.0.1:0", counter).sync().channel();
                System.out.println("PORT " + ((InetSocketAddress) listener.localAddress()).getPort());
                System.out.flush();
                ended.await();
            }
        }
    }

    /**
     * The sending process: opens the connections, each writing its share on writability from its event
     * loop and closing gracefully; marks the first GiB written over all of them and the last close.
     */
    public static final class Send {
        public static void main(String[] args) throws Exception {
            long size = Long.parseLong(args[2]);
            int connections = args.length > 3 ? Integer.parseInt(args[3]) : 1;
            long warmup = args.length > 4 ? Long.parseLong(args[4]) : 0;
            int warmConnections = args.length > 6 ? Integer.parseInt(args[6]) : 1;
            ChannelOptions options = args.length > 5 && !args[5].isEmpty()
                    ? ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, args[5]).build()
                    : ChannelOptions.empty();
            ByteBuf chunk = PooledByteBufAllocator.DEFAULT.directBuffer(CHUNK).writeZero(CHUNK);
            AtomicLong written = new AtomicLong();
            CountDownLatch closed = new CountDownLatch(connections);
            try (Transports ferry = Transports.create()) {
                if (warmup > 0) {
                    CountDownLatch warmClosed = new CountDownLatch(warmConnections);
                    for (int k = 0; k < warmConnections; k++) {
                        Channel w = ferry.connect(args[0] + "://127.0.0.1:" + args[1], new Pump(warmup / warmConnections,
                                chunk, new AtomicLong(Long.MIN_VALUE / 2), warmClosed), options).sync().channel();
                        w.closeFuture().await();
                    }
                    warmClosed.await(10, TimeUnit.SECONDS); // the last pump marks the warm-up's end
                }
                List<Channel> channels = new java.util.ArrayList<>();
                for (int c = 0; c < connections; c++) {
                    long share = size / connections + (c == 0 ? size % connections : 0);
                    channels.add(ferry.connect(args[0] + "://127.0.0.1:" + args[1], new Pump(share, chunk, written, closed),
                            options).sync().channel());
                }
                for (Channel ch : channels) {
                    ch.closeFuture().await();
                }
                closed.await(10, TimeUnit.SECONDS);
            } finally {
                chunk.release();
            }
        }
    }

    /** One connection's writer: its share of the bytes, on writability, then a graceful close. */
    private static final class Pump extends ChannelInboundHandlerAdapter {
        private final long share;
        private final ByteBuf chunk;
        private final AtomicLong written;
        private final CountDownLatch closed;
        private long sent;
        private boolean closing;

        Pump(long share, ByteBuf chunk, AtomicLong written, CountDownLatch closed) {
            this.share = share;
            this.chunk = chunk;
            this.written = written;
            this.closed = closed;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            pump(ctx);
            ctx.fireChannelActive();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            pump(ctx);
        }

        private void pump(ChannelHandlerContext ctx) {
            boolean wrote = false;
            while (sent < share && ctx.channel().isWritable()) {
                int n = (int) Math.min(CHUNK, share - sent);
                ctx.write(chunk.retainedSlice(0, n));
                sent += n;
                wrote = true;
                long after = written.addAndGet(n);
                if (after - n < GIB && after >= GIB) {
                    mark(after);
                }
            }
            if (wrote) {
                ctx.flush();
            }
            if (sent >= share && !closing) {
                closing = true;
                if (System.getenv("FERRY_BENCH_STATS") != null) {
                    System.err.println("sender " + io.ferry.transport.FerryChannels.statistics(ctx.channel()));
                }
                ctx.close().addListener(f -> {
                    synchronized (closed) {
                        closed.countDown();
                        if (closed.getCount() == 0) {
                            mark(written.get());
                        }
                    }
                });
            }
        }
    }

    private TwoProcessLoopback() {
    }
}
