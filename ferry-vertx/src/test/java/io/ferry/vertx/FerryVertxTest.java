package io.ferry.vertx;

import io.ferry.transport.Transports;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Vert.x's HTTP server and client, and its TCP-style {@code NetServer}/{@code NetClient}, over every Ferry
 * transport: real Vert.x on both ends, installed with {@code withTransport}, the bytes checked end to end.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FerryVertxTest {

    private static final String HOST = "127.0.0.1";
    private static Transports ferry;
    private static byte[] payload;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() {
        ferry = Transports.create();
        payload = new byte[3 << 20];
        new Random(7).nextBytes(payload);
    }

    @AfterAll
    static void stop() {
        ferry.close();
    }

    private static Vertx vertx(String spec) {
        return Vertx.builder().withTransport(FerryVertx.transport(ferry, spec)).build();
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "utp", "udt", "quic", "tcp?streams=4", "utp?streams=2"})
    void anHttpServerAndClientExchangeBodiesAndAFile(String spec) throws Exception {
        Path file = Files.write(dir.resolve("file-" + spec.replace('?', '_') + ".bin"), Arrays.copyOf(payload, 2 << 20));
        Vertx server = vertx(spec);
        Vertx client = vertx(spec);
        try {
            HttpServer http = server.createHttpServer()
                    .requestHandler(req -> {
                        if (req.path().equals("/file")) {
                            req.response().sendFile(file.toString());
                        } else {
                            req.body().onSuccess(body -> req.response().end(body));
                        }
                    })
                    .listen(0, HOST).await(30, TimeUnit.SECONDS);
            int port = http.actualPort();
            assertTrue(port > 0, "bound to a port");
            HttpClient http1 = client.createHttpClient();

            Buffer echoed = http1.request(HttpMethod.POST, port, HOST, "/echo")
                    .compose(req -> req.send(Buffer.buffer(payload)).compose(HttpClientResponse::body))
                    .await(60, TimeUnit.SECONDS);
            assertArrayEquals(payload, echoed.getBytes(), "the echoed body");

            Buffer sent = http1.request(HttpMethod.GET, port, HOST, "/file")
                    .compose(req -> req.send().compose(HttpClientResponse::body))
                    .await(60, TimeUnit.SECONDS);
            assertArrayEquals(Files.readAllBytes(file), sent.getBytes(), "the file sent with sendFile");

            if (spec.equals("utp") || spec.equals("udt")) {
                assertThrows(ConnectException.class, () -> tcpConnect(port), "nothing listens on TCP: the calls went over " + spec);
            }
            http1.close().await(10, TimeUnit.SECONDS);
            http.close().await(10, TimeUnit.SECONDS);
        } finally {
            client.close().await(10, TimeUnit.SECONDS);
            server.close().await(10, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "utp", "udt", "quic", "tcp?streams=4", "utp?streams=2"})
    void aNetServerEchoesWhatANetClientWrites(String spec) throws Exception {
        Vertx server = vertx(spec);
        Vertx client = vertx(spec);
        try {
            NetServer net = server.createNetServer()
                    .connectHandler(socket -> socket.handler(socket::write))
                    .listen(0, HOST).await(30, TimeUnit.SECONDS);
            NetClient netClient = client.createNetClient();
            NetSocket socket = netClient.connect(net.actualPort(), HOST).await(30, TimeUnit.SECONDS);
            Buffer received = Buffer.buffer();
            CompletableFuture<Buffer> all = new CompletableFuture<>();
            socket.handler(buf -> {
                received.appendBuffer(buf);
                if (received.length() >= payload.length) {
                    all.complete(received);
                }
            });
            for (int i = 0; i < payload.length; i += 64 << 10) {
                socket.write(Buffer.buffer(Arrays.copyOfRange(payload, i, Math.min(payload.length, i + (64 << 10)))));
            }
            assertArrayEquals(payload, all.get(60, TimeUnit.SECONDS).getBytes(), "the echoed stream");
            assertEquals(HOST, socket.remoteAddress().host());
            assertEquals(net.actualPort(), socket.remoteAddress().port());
            socket.close().await(10, TimeUnit.SECONDS);
            net.close().await(10, TimeUnit.SECONDS);
        } finally {
            client.close().await(10, TimeUnit.SECONDS);
            server.close().await(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aDomainSocketAddressIsRefusedWithAReason() throws Exception {
        Vertx vertx = vertx("utp");
        try {
            Throwable failure = assertThrows(Exception.class, () -> vertx.createNetServer()
                    .connectHandler(NetSocket::close)
                    .listen(io.vertx.core.net.SocketAddress.domainSocketAddress(dir.resolve("sock").toString()))
                    .await(10, TimeUnit.SECONDS));
            assertTrue(String.valueOf(failure.getMessage()).contains("domain socket"), failure.toString());
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void anUnknownSchemeIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FerryVertx.transport(ferry, "sctp"));
        assertTrue(e.getMessage().contains("sctp"), e.getMessage());
    }

    private static void tcpConnect(int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(HOST, port), 2000);
        }
    }
}
