package io.ferry.reactor;

import io.ferry.transport.FerryChannels;
import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;
import reactor.netty.tcp.TcpClient;
import reactor.netty.tcp.TcpServer;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reactor Netty's own servers and clients over every Ferry transport, with application code that only names
 * a scheme: HTTP GETs and POSTs through a connection pool, a file sent with {@code sendFile}, a TCP echo.
 */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FerryReactorTest {

    private static final Transports FERRY = Transports.create();
    private static final Duration WAIT = Duration.ofSeconds(60);

    @AfterAll
    static void close() {
        FERRY.close();
    }

    static Stream<String> schemes() {
        return Stream.concat(FERRY.transportNames().stream().sorted(), Stream.of("tcp?streams=4", "utp?streams=2"));
    }

    @ParameterizedTest
    @MethodSource("schemes")
    void anHttpServerAndAPooledClientServeGetsAndPosts(String scheme) throws Exception {
        LoopResources loops = FerryReactor.loops(FERRY, scheme);
        DisposableServer server = HttpServer.create().runOn(loops).host("127.0.0.1").port(0)
                .route(routes -> routes
                        .get("/hello/{n}", (req, res) -> res.sendString(Mono.just("hello " + req.param("n"))))
                        .post("/digest", (req, res) -> res.sendString(req.receive().aggregate().asByteArray().map(FerryReactorTest::sha256))))
                .bindNow(WAIT);
        ConnectionProvider pool = ConnectionProvider.create("ferry-" + scheme, 8);
        try {
            assertTrue(server.channel().hasAttr(FerryChannels.TRANSPORT), "the listener is the transport's: " + server.channel());
            java.util.Set<io.netty.channel.Channel> connections = java.util.concurrent.ConcurrentHashMap.newKeySet();
            HttpClient client = HttpClient.create(pool).runOn(loops).baseUrl("http://127.0.0.1:" + server.port())
                    .doOnConnected(c -> connections.add(c.channel()));
            List<String> greetings = Flux.range(0, 100)
                    .flatMap(i -> client.get().uri("/hello/" + i).responseContent().aggregate().asString(), 8)
                    .collectList().block(WAIT);
            assertEquals(100, greetings.size());
            assertTrue(greetings.contains("hello 0") && greetings.contains("hello 99"), () -> "answers: " + greetings.subList(0, 3));
            for (int i = 0; i < 20; i++) {
                byte[] body = new byte[256 * 1024];
                new SplittableRandom(i).nextBytes(body);
                String digest = client.post().uri("/digest").send(Mono.just(Unpooled.wrappedBuffer(body)))
                        .responseContent().aggregate().asString().block(WAIT);
                assertEquals(sha256(body), digest, "POST " + i + " arrived intact");
            }
            assertTrue(connections.size() <= 8, () -> "the pool's 8 connections carried the 120 requests, not " + connections.size());
            for (io.netty.channel.Channel c : connections) {
                assertTrue(c.hasAttr(FerryChannels.TRANSPORT), "the client's connection is the transport's: " + c);
            }
        } finally {
            pool.disposeLater().block(WAIT);
            server.disposeNow(WAIT);
        }
    }

    @ParameterizedTest
    @MethodSource("schemes")
    void sendFileCarriesAWholeFileToAnHttpClient(String scheme) throws Exception {
        int size = 32 << 20;
        Path file = Files.createTempFile("ferry-reactor", ".bin");
        try {
            byte[] expected = writeRandom(file, size);
            LoopResources loops = FerryReactor.loops(FERRY, scheme);
            DisposableServer server = HttpServer.create().runOn(loops).host("127.0.0.1").port(0)
                    .route(routes -> routes.get("/file", (req, res) -> res.sendFile(file)))
                    .bindNow(WAIT);
            ConnectionProvider pool = ConnectionProvider.create("ferry-file-" + scheme, 2);
            try {
                MessageDigest digest = MessageDigest.getInstance("SHA-256");
                long[] count = {0};
                HttpClient.create(pool).runOn(loops).get().uri("http://127.0.0.1:" + server.port() + "/file")
                        .responseContent()
                        .doOnNext(buf -> {
                            count[0] += buf.readableBytes();
                            digest.update(buf.nioBuffer());
                        })
                        .then().block(WAIT);
                assertEquals(size, count[0], "bytes of the file");
                assertEquals(HexFormat.of().formatHex(expected), HexFormat.of().formatHex(digest.digest()), "the file's bytes");
            } finally {
                pool.disposeLater().block(WAIT);
                server.disposeNow(WAIT);
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @ParameterizedTest
    @MethodSource("schemes")
    void aTcpServerEchoesToATcpClient(String scheme) {
        LoopResources loops = FerryReactor.loops(FERRY, scheme);
        DisposableServer server = TcpServer.create().runOn(loops).host("127.0.0.1").port(0)
                .handle((in, out) -> out.send(in.receive().retain()))
                .bindNow(WAIT);
        try {
            byte[] payload = new byte[1 << 20];
            new SplittableRandom(7).nextBytes(payload);
            Connection client = TcpClient.create().runOn(loops).host("127.0.0.1").port(server.port()).connectNow(WAIT);
            try {
                client.outbound().send(Mono.just(Unpooled.wrappedBuffer(payload))).then().subscribe();
                byte[] echoed = client.inbound().receive().asByteArray()
                        .scan(new byte[0], FerryReactorTest::concat)
                        .filter(b -> b.length >= payload.length).next().block(WAIT);
                assertEquals(sha256(payload), sha256(echoed), "the echo");
                assertInstanceOf(io.netty.channel.socket.SocketChannel.class, client.channel());
            } finally {
                client.disposeNow(WAIT);
            }
        } finally {
            server.disposeNow(WAIT);
        }
    }

    @Test
    void aSchemeThatIsNotInstalledOrAMalformedQueryIsRefusedByName() {
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> FerryReactor.loops(FERRY, "sctp"));
        assertTrue(unknown.getMessage().contains("sctp"), unknown.getMessage());
        IllegalArgumentException query = assertThrows(IllegalArgumentException.class, () -> FerryReactor.loops(FERRY, "tcp?stream=4"));
        assertTrue(query.getMessage().contains("stream"), query.getMessage());
    }

    private static byte[] writeRandom(Path file, int size) throws IOException, java.security.NoSuchAlgorithmException {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        SplittableRandom random = new SplittableRandom(9);
        byte[] block = new byte[1 << 20];
        try (RandomAccessFile out = new RandomAccessFile(file.toFile(), "rw")) {
            for (int written = 0; written < size; written += block.length) {
                random.nextBytes(block);
                out.write(block);
                digest.update(block);
            }
        }
        return digest.digest();
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException cannotHappen) {
            throw new IllegalStateException(cannotHappen);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
