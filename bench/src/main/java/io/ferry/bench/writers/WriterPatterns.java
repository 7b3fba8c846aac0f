package io.ferry.bench.writers;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.scenario.TestBed;
import io.ferry.bench.transfer.ReferenceTransfers;
import io.ferry.transport.BlockingChannelWriter;
import io.ferry.transport.ChannelOptions;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.util.ReferenceCountUtil;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * How fast each way of producing into a Ferry channel moves the same bytes, per transport, on loopback
 * or any path: for each message shape the event-loop writer (writability-driven) is the reference, and
 * every application-thread producer of that shape is reported as a ratio to it in the same run. 64 KiB
 * messages move {@code --size} bytes; 64 B and 512 B messages a quarter of it.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar io.ferry.bench.writers.WriterPatterns [--transports netty,tcp,utp,udt] [--size 100M]
 *      [--rounds 3] [--high-water SIZE] [--patterns loop,writer,...] [--link MBIT,RTT_MS] [--cold]
 * </pre>
 *
 * <p>The transport {@value #PLAIN_NETTY} is plain Netty over epoll without Ferry, with Netty's own water
 * marks unless {@code --high-water} is given: the same patterns on the best Netty alternative.
 *
 * <p>{@code --link 200,150} runs each transfer between two network namespaces joined by the TUN link
 * emulator at that rate and round-trip time, with a queue of one bandwidth-delay product (needs root), and
 * first measures native UDT4's own sender and iperf3 there. {@code --cold} skips the warm-up and prints
 * every round in order: in a fresh JVM the first round is the cold start.
 * <pre>
 * </pre>
 */
public final class WriterPatterns {

    static final int CHUNK = 64 * 1024;
    /** What every message is a slice of; never released (it lives as long as the class). */
    private static final ByteBuf ZEROS = Unpooled.unreleasableBuffer(Unpooled.directBuffer(CHUNK).writeZero(CHUNK));

    /** One way an application produces: a message shape and who writes it. */
    enum Pattern {
        LOOP(Shape.CHUNK, "event loop, on writability (reference)"),
        POLL(Shape.CHUNK, "app thread, polls isWritable()"),
        WRITER(Shape.CHUNK, "app thread, BlockingChannelWriter"),
        THREADS4(Shape.CHUNK, "4 app threads, a BlockingChannelWriter each"),
        SYNC(Shape.CHUNK, "app thread, writeAndFlush(msg).sync() each"),
        SMALL_LOOP(Shape.SMALL, "event loop, flush per 1000 (reference)"),
        SMALL_WRITER(Shape.SMALL, "app thread, BlockingChannelWriter, flush per 1000"),
        RECORDS_LOOP(Shape.RECORD, "event loop, writeAndFlush each (reference)"),
        RECORDS_WRITER(Shape.RECORD, "app thread, BlockingChannelWriter.writeAndFlush each");

        final Shape shape;
        final String description;

        Pattern(Shape shape, String description) {
            this.shape = shape;
            this.description = description;
        }

        boolean onLoop() {
            return this == LOOP || this == SMALL_LOOP || this == RECORDS_LOOP;
        }
    }

    /** The messages a pattern writes. */
    enum Shape {
        CHUNK(64 * 1024, 1, "64 KiB"), SMALL(64, 1000, "64 B"), RECORD(512, 1, "512 B + 4 B length");

        final int size;
        final int perFlush;
        final String label;

        Shape(int size, int perFlush, String label) {
            this.size = size;
            this.perFlush = perFlush;
            this.label = label;
        }
    }

    public static void main(String[] args) throws Exception {
        List<String> transports = List.of("tcp", "utp", "udt");
        long size = 100L << 20;
        int rounds = 3;
        boolean cold = false;
        long linkMbit = 0;
        long rttMs = 0;
        WriteBufferWaterMark waterMark = null;
        List<Pattern> patterns = Arrays.asList(Pattern.values());
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--transports" -> transports = List.of(args[++i].split(","));
                case "--size" -> size = parseSize(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--cold" -> cold = true;
                case "--link" -> {
                    String[] link = args[++i].split(",");
                    linkMbit = Long.parseLong(link[0]);
                    rttMs = Long.parseLong(link[1]);
                }
                case "--high-water" -> {
                    int high = (int) parseSize(args[++i]);
                    waterMark = new WriteBufferWaterMark(high / 2, high);
                }
                case "--patterns" -> patterns = Arrays.stream(args[++i].split(",")).map(s -> Pattern.valueOf(s.toUpperCase(Locale.ROOT))).toList();
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        ChannelOptions options = waterMark == null ? ChannelOptions.empty()
                : ChannelOptions.builder().set(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark).build();
        System.out.printf("%-5s %-20s %-54s %9s %13s %8s%n", "", "messages", "producer", "Mbit/s", "(min-max)", "x ref");
        try (TestBed ends = linkMbit > 0 ? TestBed.emulated(link(linkMbit, rttMs)) : TestBed.loopback()) {
            System.out.println("# " + (ends.isEmulated() ? "emulated link: " + linkMbit + " Mbit/s, " + rttMs
                    + " ms RTT, queue of one BDP" : "loopback"));
            if (ends.isEmulated()) {
                references(ends, size);
            }
            for (String transport : transports) {
                long bytes = size;
                // warm-up: one untimed round of the reference writer, so that the first row is not a cold JIT's
                if (!cold) {
                    run(ends, transport, Pattern.LOOP, options, Math.min(bytes, 64L << 20));
                }
                Map<Shape, Double> reference = new EnumMap<>(Shape.class);
                for (Pattern pattern : patterns) {
                    double[] rates = new double[rounds];
                    for (int r = 0; r < rounds; r++) {
                        rates[r] = run(ends, transport, pattern, options, pattern.shape == Shape.CHUNK ? bytes : bytes / 4);
                    }
                    double[] sorted = rates.clone();
                    Arrays.sort(sorted);
                    double median = sorted[rounds / 2];
                    if (pattern.onLoop()) {
                        reference.put(pattern.shape, median);
                    }
                    Double ref = reference.get(pattern.shape);
                    System.out.printf(Locale.ROOT, "%-5s %-20s %-54s %9.0f %13s %8s%n", transport, pattern.shape.label,
                            pattern.description, median, String.format(Locale.ROOT, "%.0f-%.0f", sorted[0], sorted[rounds - 1]),
                            ref != null ? String.format(Locale.ROOT, "%.2f", median / ref) : "-");
                    if (cold) {
                        System.out.printf(Locale.ROOT, "      rounds in order (the first in a fresh JVM): %s%n",
                                Arrays.stream(rates).mapToObj(r -> String.format(Locale.ROOT, "%.0f", r)).toList());
                    }
                }
            }
        } finally {
            if (plainGroup != null) {
                plainGroup.shutdownGracefully().syncUninterruptibly();
            }
        }
    }

    /**
     * The best peers on the same link in the same run: native UDT4's own sender (a C++ program on Debian's
     * libudt, writing from its own thread) and the kernel's TCP (iperf3, cubic), each moving {@code size} bytes.
     */
    /** {@code mbit} Mbit/s each way, {@code rttMs} round trip, a queue of one bandwidth-delay product. */
    private static LinkModel link(long mbit, long rttMs) {
        long bits = mbit * 1_000_000;
        return LinkModel.delay(Duration.ofMillis(rttMs / 2)).withRate(bits, LinkModel.queueFor(bits, Duration.ofMillis(rttMs)));
    }

    private static void references(TestBed ends, long size) {
        Duration cap = Duration.ofMinutes(3);
        String libudt = ReferenceTransfers.libudtMissing().map(why -> "skipped: " + why).orElseGet(() -> rate(
                ReferenceTransfers.libudt(ends.clientNamespace(), ends.serverNamespace(), ends.serverAddress(), size, cap)));
        String iperf = ReferenceTransfers.iperf3Missing().map(why -> "skipped: " + why).orElseGet(() -> rate(
                ReferenceTransfers.iperf3(ends.clientNamespace(), ends.serverNamespace(), ends.serverAddress(), size, "cubic", cap)));
        System.out.printf(Locale.ROOT, "%-5s %-20s %-54s %9s%n", "ref", "native UDT4", "its own sender thread (libudt-dev, C++)", libudt);
        System.out.printf(Locale.ROOT, "%-5s %-20s %-54s %9s%n", "ref", "kernel TCP", "iperf3 -C cubic", iperf);
    }

    private static String rate(ReferenceTransfers.Result r) {
        return r.ok() ? String.format(Locale.ROOT, "%.0f", r.mbitPerSecond()) : "failed: " + r.failure();
    }

    /** Moves {@code size} bytes with {@code pattern}; returns Mbit/s from the first write to the last byte received. */
    static double run(TestBed ends, String transport, Pattern pattern, ChannelOptions options, long size) throws Exception {
        AtomicLong received = new AtomicLong();
        CompletableFuture<Long> done = new CompletableFuture<>();
        Shape shape = pattern.shape;
        long messages = size / shape.size;
        long expected = messages * (shape == Shape.RECORD ? shape.size + 4 : shape.size);
        Channel server = listen(ends, transport, options, new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        long now = received.addAndGet(((ByteBuf) msg).readableBytes());
                        ReferenceCountUtil.release(msg);
                        if (now >= expected) {
                            done.complete(System.nanoTime());
                        }
                    }
                });
            }
        });
        int port = ((java.net.InetSocketAddress) server.localAddress()).getPort();
        LoopWriter loopWriter = pattern.onLoop() ? new LoopWriter(shape, messages) : null;
        Channel client = connect(ends, transport, options, port, new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                if (shape == Shape.RECORD) {
                    ch.pipeline().addLast(new LengthFieldPrepender(4));
                }
                if (loopWriter != null) {
                    ch.pipeline().addLast(loopWriter);
                }
            }
        });
        ByteBuf chunk = ZEROS;
        long start = System.nanoTime();
        try {
            switch (pattern) {
                case LOOP, SMALL_LOOP, RECORDS_LOOP ->
                        client.eventLoop().execute(() -> loopWriter.start(client.pipeline().context(loopWriter)));
                case POLL -> {
                    for (long n = 0; n < messages; n++) {
                        client.writeAndFlush(chunk.retainedDuplicate());
                        while (!client.isWritable() && client.isActive()) {
                            LockSupport.parkNanos(50_000);
                        }
                    }
                }
                case WRITER -> produce(client, chunk, size);
                case THREADS4 -> {
                    List<Thread> threads = new ArrayList<>();
                    List<Throwable> failures = new ArrayList<>();
                    for (int t = 0; t < 4; t++) {
                        Thread thread = new Thread(() -> {
                            try {
                                produce(client, chunk, size / 4);
                            } catch (Throwable e) {
                                synchronized (failures) {
                                    failures.add(e);
                                }
                            }
                        });
                        threads.add(thread);
                        thread.start();
                    }
                    for (Thread thread : threads) {
                        thread.join();
                    }
                    if (!failures.isEmpty()) {
                        throw new IllegalStateException(failures.get(0));
                    }
                }
                case SYNC -> {
                    for (long n = 0; n < messages; n++) {
                        client.writeAndFlush(chunk.retainedDuplicate()).sync();
                    }
                }
                case SMALL_WRITER, RECORDS_WRITER -> {
                    try (BlockingChannelWriter out = BlockingChannelWriter.of(client)) {
                        for (long n = 0; n < messages; n++) {
                            out.write(chunk.retainedSlice(0, shape.size));
                            if (n % shape.perFlush == shape.perFlush - 1) {
                                out.flush();
                            }
                        }
                        out.flush();
                    }
                }
            }
            long end = done.get(10, TimeUnit.MINUTES);
            return expected * 8.0 / ((end - start) / 1e3);
        } finally {
            client.close().sync();
            server.close().sync();
        }
    }

    /**
     * The transport name for plain Netty over epoll, no Ferry (Netty's own water marks unless
     * {@code --high-water} sets them): how the same patterns fare on the best Netty alternative.
     */
    static final String PLAIN_NETTY = "netty";
    private static EventLoopGroup plainGroup;

    private static synchronized EventLoopGroup plainGroup() {
        if (plainGroup == null) {
            plainGroup = new MultiThreadIoEventLoopGroup(EpollIoHandler.newFactory());
        }
        return plainGroup;
    }

    private static Channel listen(TestBed ends, String transport, ChannelOptions options, ChannelInitializer<Channel> child) throws Exception {
        if (transport.equals(PLAIN_NETTY)) {
            ServerBootstrap b = new ServerBootstrap().group(plainGroup()).channel(EpollServerSocketChannel.class).childHandler(child);
            options.get(ChannelOption.WRITE_BUFFER_WATER_MARK).ifPresent(w -> b.childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, w));
            return ends.server().call(() -> b.bind(ends.serverAddress(), 0).sync().channel());
        }
        return ends.server().call(() -> ends.server().transports().listen(transport + "://" + ends.serverAddress() + ":0", child, options).sync().channel());
    }

    private static Channel connect(TestBed ends, String transport, ChannelOptions options, int port, ChannelInitializer<Channel> handler) throws Exception {
        if (transport.equals(PLAIN_NETTY)) {
            Bootstrap b = new Bootstrap().group(plainGroup()).channel(EpollSocketChannel.class).handler(handler);
            options.get(ChannelOption.WRITE_BUFFER_WATER_MARK).ifPresent(w -> b.option(ChannelOption.WRITE_BUFFER_WATER_MARK, w));
            return ends.client().call(() -> b.connect(ends.serverAddress(), port).sync().channel());
        }
        return ends.client().call(() -> ends.client().transports().connect(transport + "://" + ends.serverAddress() + ":" + port, handler, options).sync().channel());
    }

    private static void produce(Channel client, ByteBuf chunk, long size) throws Exception {
        try (BlockingChannelWriter out = BlockingChannelWriter.of(client)) {
            for (long sent = 0; sent < size; sent += CHUNK) {
                out.write(chunk.retainedDuplicate());
            }
            out.flush();
        }
    }

    /** The reference: writes on the event loop while the channel is writable, resumes on writability. */
    private static final class LoopWriter extends ChannelInboundHandlerAdapter {
        private final Shape shape;
        private final long messages;
        private final ByteBuf chunk = ZEROS;
        private long sent;
        private boolean started;

        LoopWriter(Shape shape, long messages) {
            this.shape = shape;
            this.messages = messages;
        }

        void start(ChannelHandlerContext ctx) {
            started = true;
            pump(ctx);
        }

        private void pump(ChannelHandlerContext ctx) {
            while (sent < messages && ctx.channel().isWritable()) {
                ctx.write(chunk.retainedSlice(0, shape.size));
                if (++sent % shape.perFlush == 0) {
                    ctx.flush();
                }
            }
            ctx.flush();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (started && ctx.channel().isWritable()) {
                pump(ctx);
            }
            ctx.fireChannelWritabilityChanged();
        }
    }

    static long parseSize(String s) {
        String u = s.toUpperCase(Locale.ROOT);
        long m = u.endsWith("K") ? 1L << 10 : u.endsWith("M") ? 1L << 20 : u.endsWith("G") ? 1L << 30 : 1;
        return Long.parseLong(m == 1 ? u : u.substring(0, u.length() - 1)) * m;
    }

    private WriterPatterns() {
    }
}
