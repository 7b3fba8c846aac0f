package io.ferry.bench.engines;

import io.ferry.transport.Transports;
import io.ferry.vertx.FerryVertx;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.streams.WriteStream;
import io.vertx.core.transport.Transport;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Vert.x HTTP over each Ferry transport against plain Vert.x (its NIO transport, the kernel's TCP) in the
 * same run: a download (the server streams {@code --size} bytes in 1 MiB writes, paced by the response's
 * write queue) and an upload (the client streams them, paced alike), median of {@code --rounds} after one
 * warm-up, each transport's rate and its ratio to plain Vert.x. What this measures on top of the transport
 * is the crossing between Vert.x's loops and the transport's ({@code HostedSocketChannel}).
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar io.ferry.bench.engines.VertxTransfer
 *      [--size 1G] [--rounds 3] [--transports plain,tcp,utp,udt,tcp?streams=4]
 * </pre>
 */
public final class VertxTransfer {

    private static final String HOST = "127.0.0.1";
    private static final Buffer CHUNK = Buffer.buffer(new byte[1 << 20]);

    public static void main(String[] args) throws Exception {
        long size = EngineRuns.parseSize(EngineRuns.option(args, "--size", "1G"));
        int rounds = Integer.parseInt(EngineRuns.option(args, "--rounds", "3"));
        List<String> transports = Arrays.asList(EngineRuns.option(args, "--transports", "plain,tcp,utp,udt").split(","));
        System.out.printf(Locale.ROOT, "# Vert.x HTTP/1.1, %d MiB per transfer, median of %d rounds after one warm-up%n", size >> 20, rounds);
        System.out.printf(Locale.ROOT, "%-13s %25s %9s %25s %9s%n", "", "download Mbit/s (min-max)", "x plain", "upload Mbit/s (min-max)", "x plain");
        double plainDown = Double.NaN;
        double plainUp = Double.NaN;
        try (Transports ferry = Transports.create()) {
            for (String transport : transports) {
                Transport vertxTransport = transport.equals("plain") ? Transport.NIO : FerryVertx.transport(ferry, transport);
                Vertx server = Vertx.builder().withTransport(vertxTransport).build();
                Vertx client = Vertx.builder().withTransport(vertxTransport).build();
                double[] down = new double[rounds];
                double[] up = new double[rounds];
                try {
                    HttpServer http = server.createHttpServer().requestHandler(req -> {
                        if (req.method() == HttpMethod.GET) {
                            req.response().setChunked(true);
                            stream(req.response(), size).onComplete(done -> req.response().end());
                        } else {
                            AtomicLong got = new AtomicLong();
                            req.handler(buf -> got.addAndGet(buf.length()));
                            req.endHandler(v -> req.response().end(Long.toString(got.get())));
                        }
                    }).listen(0, HOST).await(30, TimeUnit.SECONDS);
                    HttpClient httpClient = client.createHttpClient();
                    download(httpClient, http.actualPort(), size);
                    upload(httpClient, http.actualPort(), size);
                    for (int r = 0; r < rounds; r++) {
                        down[r] = download(httpClient, http.actualPort(), size);
                        up[r] = upload(httpClient, http.actualPort(), size);
                    }
                } finally {
                    client.close().await(30, TimeUnit.SECONDS);
                    server.close().await(30, TimeUnit.SECONDS);
                }
                double d = EngineRuns.median(down);
                double u = EngineRuns.median(up);
                if (transport.equals("plain")) {
                    plainDown = d;
                    plainUp = u;
                }
                System.out.printf(Locale.ROOT, "%-13s %9.0f (%5.0f-%5.0f) %9.2f %9.0f (%5.0f-%5.0f) %9.2f%n", transport,
                        d, EngineRuns.min(down), EngineRuns.max(down), d / plainDown, u, EngineRuns.min(up), EngineRuns.max(up), u / plainUp);
            }
        }
    }

    /** Writes {@code remaining} bytes to {@code out} in 1 MiB writes, waiting whenever its queue is full. */
    private static Future<Void> stream(WriteStream<Buffer> out, long remaining) {
        Promise<Void> done = Promise.promise();
        new Object() {
            long left = remaining;

            void pump() {
                while (left > 0 && !out.writeQueueFull()) {
                    int n = (int) Math.min(left, CHUNK.length());
                    out.write(n == CHUNK.length() ? CHUNK : CHUNK.slice(0, n));
                    left -= n;
                }
                if (left > 0) {
                    out.drainHandler(v -> pump());
                } else {
                    out.drainHandler(null);
                    done.tryComplete();
                }
            }
        }.pump();
        return done.future();
    }

    private static double download(HttpClient client, int port, long size) throws Exception {
        long start = System.nanoTime();
        long got = client.request(HttpMethod.GET, port, HOST, "/").compose(HttpClientRequest::send).compose(resp -> {
            Promise<Long> all = Promise.promise();
            AtomicLong n = new AtomicLong();
            resp.handler(buf -> n.addAndGet(buf.length()));
            resp.endHandler(v -> all.complete(n.get()));
            resp.exceptionHandler(all::fail);
            return all.future();
        }).await(10, TimeUnit.MINUTES);
        check(size, got);
        return mbps(size, System.nanoTime() - start);
    }

    private static double upload(HttpClient client, int port, long size) throws Exception {
        long start = System.nanoTime();
        String reply = client.request(HttpMethod.POST, port, HOST, "/").compose(req -> {
            req.setChunked(true);
            return stream(req, size).compose(v -> req.end()).compose(v -> req.response())
                    .compose(resp -> resp.body()).map(Buffer::toString);
        }).await(10, TimeUnit.MINUTES);
        check(size, Long.parseLong(reply));
        return mbps(size, System.nanoTime() - start);
    }

    private static void check(long expected, long got) {
        if (got != expected) {
            throw new IllegalStateException("moved " + got + " bytes, expected " + expected);
        }
    }

    private static double mbps(long bytes, long nanos) {
        return bytes * 8e3 / nanos;
    }

    private VertxTransfer() {
    }
}
