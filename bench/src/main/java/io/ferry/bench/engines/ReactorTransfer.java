package io.ferry.bench.engines;

import io.ferry.reactor.FerryReactor;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.Transports;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * Reactor Netty HTTP over each Ferry transport ({@link FerryReactor#loops}) against plain Reactor Netty (its
 * own loops over the kernel's TCP) in the same run: a download (the server sends {@code --size} bytes in
 * 1 MiB chunks) and an upload (the client POSTs them), median of {@code --rounds}, each transport's rate and
 * its ratio to plain Reactor Netty. On loopback after one warm-up; with {@code --emulated} between two network
 * namespaces behind the TUN emulator (root), every socket in its peer's namespace, no warm-up.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar io.ferry.bench.engines.ReactorTransfer
 *      [--size 1G] [--rounds 3] [--transports plain,tcp,utp,quic,tcp?streams=4]
 *      [--emulated [--mbit 200] [--rtt-ms 150] [--loss 0] [--queue-ms 150] [--cc cubic]]
 * </pre>
 */
public final class ReactorTransfer {

    private static final Duration WAIT = Duration.ofMinutes(10);
    private static final ByteBuf CHUNK = Unpooled.unreleasableBuffer(Unpooled.directBuffer(1 << 20).writeZero(1 << 20));

    /** Where a side runs its calls: this thread on loopback, a peer's namespace thread when emulated. */
    private interface Side {
        <T> T call(Callable<T> task) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        long size = EngineRuns.parseSize(EngineRuns.option(args, "--size", "1G"));
        int rounds = Integer.parseInt(EngineRuns.option(args, "--rounds", "3"));
        List<String> transports = Arrays.asList(EngineRuns.option(args, "--transports", "plain,tcp,utp,quic").split(","));
        String cc = EngineRuns.option(args, "--cc", "");
        ChannelOptions options = cc.isEmpty() ? ChannelOptions.empty()
                : ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, cc).build();
        if (Arrays.asList(args).contains("--emulated")) {
            io.ferry.bench.emulator.LinkArguments link = new io.ferry.bench.emulator.LinkArguments(200, 150, 0, 150);
            for (int i = 0; i < args.length; i++) {
                int taken = link.take(args, i);
                if (taken >= 0) {
                    i = taken;
                }
            }
            io.ferry.bench.emulator.LinkModel model = link.model();
            try (io.ferry.bench.scenario.TestBed bed = io.ferry.bench.scenario.TestBed.emulated(model)) {
                System.out.printf(Locale.ROOT, "# Reactor Netty HTTP/1.1 over %s, %d MiB per transfer, median of %d rounds, no warm-up; cc: %s%n",
                        model.describe(), size >> 20, rounds, cc.isEmpty() ? "each transport's default (kernel TCP: the namespace's)" : cc + " for Ferry's transports");
                run(transports, size, rounds, 0, bed.serverAddress(), bed.server().transports(), bed.client().transports(),
                        bed.server()::call, bed.client()::call, options);
            }
            return;
        }
        System.out.printf(Locale.ROOT, "# Reactor Netty HTTP/1.1 on loopback, %d MiB per transfer, median of %d rounds after one warm-up%n", size >> 20, rounds);
        try (Transports ferry = Transports.create()) {
            Side here = ReactorTransfer::direct;
            run(transports, size, rounds, 1, "127.0.0.1", ferry, ferry, here, here, options);
        }
    }

    private static <T> T direct(Callable<T> task) throws Exception {
        return task.call();
    }

    private static void run(List<String> transports, long size, int rounds, int warmups, String host, Transports serverSide,
                            Transports clientSide, Side server, Side client, ChannelOptions options) throws Exception {
        System.out.printf(Locale.ROOT, "%-13s %25s %9s %25s %9s%n", "", "download Mbit/s (min-max)", "x plain", "upload Mbit/s (min-max)", "x plain");
        double plainDown = Double.NaN;
        double plainUp = Double.NaN;
        for (String transport : transports) {
            boolean plain = transport.equals("plain");
            // plain Reactor's loops start their threads in the namespace of the thread that first uses them
            LoopResources serverLoops = server.call(() -> plain ? started(LoopResources.create("plain-server", 2, true))
                    : FerryReactor.loops(serverSide, transport, options));
            LoopResources clientLoops = client.call(() -> plain ? started(LoopResources.create("plain-client", 2, true))
                    : FerryReactor.loops(clientSide, transport, options));
            ConnectionProvider pool = ConnectionProvider.create("bench-" + transport, 1);
            DisposableServer http = server.call(() -> HttpServer.create().runOn(serverLoops).host(host).port(0)
                    .route(r -> r.get("/", (req, res) -> res.send(chunks(size)))
                            .post("/", (req, res) -> res.sendString(req.receive().map(ByteBuf::readableBytes)
                                    .reduce(0L, (sum, n) -> sum + n).map(String::valueOf))))
                    .bindNow(WAIT));
            HttpClient httpClient = HttpClient.create(pool).runOn(clientLoops).baseUrl("http://" + host + ":" + http.port());
            double[] down = new double[rounds];
            double[] up = new double[rounds];
            try {
                for (int w = 0; w < warmups; w++) {
                    client.call(() -> download(httpClient, size));
                    client.call(() -> upload(httpClient, size));
                }
                for (int r = 0; r < rounds; r++) {
                    down[r] = client.call(() -> download(httpClient, size));
                    up[r] = client.call(() -> upload(httpClient, size));
                }
            } finally {
                pool.disposeLater().block(WAIT);
                http.disposeNow(WAIT);
                if (plain) {
                    serverLoops.disposeLater().block(WAIT);
                    clientLoops.disposeLater().block(WAIT);
                }
            }
            double d = EngineRuns.median(down);
            double u = EngineRuns.median(up);
            if (plain) {
                plainDown = d;
                plainUp = u;
            }
            System.out.printf(Locale.ROOT, "%-13s %9.1f (%5.1f-%5.1f) %9.2f %9.1f (%5.1f-%5.1f) %9.2f%n", transport,
                    d, EngineRuns.min(down), EngineRuns.max(down), d / plainDown, u, EngineRuns.min(up), EngineRuns.max(up), u / plainUp);
        }
    }

    /** Starts every loop thread of {@code loops} from this thread (so in its network namespace). */
    private static LoopResources started(LoopResources loops) {
        for (io.netty.util.concurrent.EventExecutor e : loops.onServer(true)) {
            e.submit(() -> { }).syncUninterruptibly();
        }
        for (io.netty.util.concurrent.EventExecutor e : loops.onServerSelect(true)) {
            e.submit(() -> { }).syncUninterruptibly();
        }
        for (io.netty.util.concurrent.EventExecutor e : loops.onClient(true)) {
            e.submit(() -> { }).syncUninterruptibly();
        }
        return loops;
    }

    /** {@code size} bytes as 1 MiB chunks (the last one shorter), each a view of one shared buffer. */
    private static Flux<ByteBuf> chunks(long size) {
        long count = (size + CHUNK.capacity() - 1) / CHUNK.capacity();
        return Flux.range(0, (int) count).map(i -> {
            long left = size - (long) i * CHUNK.capacity();
            return CHUNK.retainedSlice(0, (int) Math.min(left, CHUNK.capacity()));
        });
    }

    private static double download(HttpClient client, long size) {
        long start = System.nanoTime();
        Long got = client.get().uri("/").responseContent().map(ByteBuf::readableBytes).reduce(0L, (sum, n) -> sum + n).block(WAIT);
        check(size, got);
        return mbps(size, System.nanoTime() - start);
    }

    private static double upload(HttpClient client, long size) {
        long start = System.nanoTime();
        String reply = client.post().uri("/").send(chunks(size)).responseContent().aggregate().asString().block(WAIT);
        check(size, Long.parseLong(reply));
        return mbps(size, System.nanoTime() - start);
    }

    private static void check(long expected, Long got) {
        if (got == null || got != expected) {
            throw new IllegalStateException("moved " + got + " bytes, expected " + expected);
        }
    }

    private static double mbps(long bytes, long nanos) {
        return bytes * 8e3 / nanos;
    }

    private ReactorTransfer() {
    }
}
