package io.ferry.cli.perf;

import io.ferry.cli.transfer.SharedSecret;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code ferry perf}'s server and client in one process on loopback: the fairness runs' figures, one client at
 * a time, the token, a client that vanishes mid-test, IPv6. Real sockets, every transport's real stack.
 */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PerfSessionTest {

    private static final ScavengerRuns.Timing SHORT = new ScavengerRuns.Timing(2, 4, 1, 1);

    private Transports serverSide;
    private Transports clientSide;
    private PerfServer server;
    private final StringWriter serverLog = new StringWriter();

    @BeforeEach
    void open() {
        serverSide = Transports.create();
        clientSide = Transports.create();
    }

    @AfterEach
    void close() {
        if (server != null) {
            server.close();
        }
        clientSide.close();
        serverSide.close();
    }

    private int serve(SharedSecret secret, String address) throws Exception {
        return serve(secret, address, null);
    }

    private int serve(SharedSecret secret, String address, io.ferry.cli.tls.ReceiverTls tls) throws Exception {
        server = new PerfServer(serverSide, new PerfServer.Settings(0, secret, 60, false, tls), new PrintWriter(serverLog, true));
        return server.start(new InetSocketAddress(InetAddress.getByName(address), 0)).getPort();
    }

    private static PerfClient.Settings settings(List<String> transports, long seconds, PerfClient.Directions d, boolean fairness,
                                                SharedSecret secret) {
        return new PerfClient.Settings(transports, seconds, d, Long.MAX_VALUE, fairness, null, secret, SHORT, null, null);
    }

    @Test
    void theScavengersRunsReportShareHarmAndSeriesFromTheServersClock() throws Exception {
        int port = serve(null, "127.0.0.1");
        PerfReport r = new PerfClient(clientSide, "127.0.0.1", port, settings(List.of("tcp"), 2, PerfClient.Directions.UP, true, null),
                PerfClient.Progress.NONE).run();
        FairnessResult f = r.fairness();
        assertTrue(f != null, "the fairness section ran");
        assertTrue(f.tcpAloneMbps() > 0 && f.ledbatAloneMbps() > 0, "both flows moved data alone: " + f);
        for (FairnessResult.Join j : List.of(f.tcpJoins(), f.ledbatJoins())) {
            assertTrue(j.ledbatShare() >= 0 && j.ledbatShare() <= 1, "a share is a fraction: " + j.ledbatShare());
            assertTrue(j.joinSeconds() > 0.5 && j.joinSeconds() < 2, "the second flow joined about 1 s in: " + j.joinSeconds());
            assertEquals(8, j.ledbatMbps().length, "4 s in 0.5 s steps");
            assertEquals(8, j.tcpSeriesMbps().length);
            assertTrue(j.tcpMbps() > 0 && j.harm() > 0, "tcp moved data beside ledbat: " + j);
        }
        // the joining flow has nothing before its join: the series of the joiner starts at zero
        assertEquals(0.0, f.tcpJoins().tcpSeriesMbps()[0], "tcp had not joined yet in the first half second");
        assertEquals(0.0, f.ledbatJoins().ledbatMbps()[0], "ledbat had not joined yet in the first half second");
    }

    @Test
    void aSecondClientIsToldWhoIsTestingAndTurnedAway() throws Exception {
        int port = serve(null, "127.0.0.1");
        ControlConnection first = control(port);
        first.send(ControlMessage.of("HELLO", "version", ServerSession.VERSION));
        first.expect("WELCOME", 10_000);
        PerfException busy = assertThrows(PerfException.class, () -> new PerfClient(clientSide, "127.0.0.1", port,
                settings(List.of("tcp"), 1, PerfClient.Directions.UP, false, null), PerfClient.Progress.NONE).run());
        assertTrue(busy.getMessage().contains("busy") && busy.getMessage().contains("127.0.0.1"), busy.getMessage());
        first.close();
        // the server is free again once the first client left
        awaitServed(port);
    }

    @Test
    void aTokenServerAdmitsOnlyClientsHoldingItsSecret() throws Exception {
        SharedSecret secret = SharedSecret.of("0123456789abcdef0123".getBytes());
        int port = serve(secret, "127.0.0.1");
        PerfException none = assertThrows(PerfException.class, () -> new PerfClient(clientSide, "127.0.0.1", port,
                settings(List.of("tcp"), 1, PerfClient.Directions.UP, false, null), PerfClient.Progress.NONE).run());
        assertTrue(none.getMessage().contains("--token-file"), none.getMessage());
        PerfException wrong = assertThrows(PerfException.class, () -> new PerfClient(clientSide, "127.0.0.1", port,
                settings(List.of("tcp"), 1, PerfClient.Directions.UP, false, SharedSecret.of("another secret, 16+ bytes".getBytes())),
                PerfClient.Progress.NONE).run());
        assertTrue(wrong.getMessage().contains("refused the token"), wrong.getMessage());
        PerfReport ok = new PerfClient(clientSide, "127.0.0.1", port, settings(List.of("tcp"), 1, PerfClient.Directions.UP, false, secret),
                PerfClient.Progress.NONE).run();
        assertTrue(ok.bulk().get(0).ok() && ok.bulk().get(0).bytes() > 0, "the right token runs its tests: " + ok.bulk());
    }

    @Test
    void overTlsAPinnedClientIsServedAndAWrongPinOrPlainTcpIsNot() throws Exception {
        io.ferry.cli.tls.ReceiverTls tls = io.ferry.cli.tls.ReceiverTls.selfSigned("127.0.0.1");
        int port = serve(null, "127.0.0.1", tls);
        PerfReport ok = new PerfClient(clientSide, "127.0.0.1", port, new PerfClient.Settings(List.of("tcp"), 1, PerfClient.Directions.UP,
                Long.MAX_VALUE, false, null, null, SHORT, io.ferry.cli.tls.SenderTls.pinned(tls.fingerprint()), null), PerfClient.Progress.NONE).run();
        assertTrue(ok.bulk().get(0).ok() && ok.bulk().get(0).bytes() > 0, "the pinned client ran its test: " + ok.bulk());
        String wrongPin = "sha256:" + "00".repeat(32);
        assertThrows(java.io.IOException.class, () -> new PerfClient(clientSide, "127.0.0.1", port, new PerfClient.Settings(List.of("tcp"), 1,
                PerfClient.Directions.UP, Long.MAX_VALUE, false, null, null, SHORT, io.ferry.cli.tls.SenderTls.pinned(wrongPin), null),
                PerfClient.Progress.NONE).run());
        assertThrows(java.io.IOException.class, () -> new PerfClient(clientSide, "127.0.0.1", port,
                settings(List.of("tcp"), 1, PerfClient.Directions.UP, false, null), PerfClient.Progress.NONE).run());
    }

    @Test
    void aClientThatVanishesMidTestLeavesTheServerReadyForTheNext() throws Exception {
        int port = serve(null, "127.0.0.1");
        ControlConnection gone = control(port);
        gone.send(ControlMessage.of("HELLO", "version", ServerSession.VERSION));
        gone.expect("WELCOME", 10_000);
        gone.send(ControlMessage.of("TEST", "id", 1, "uri", "tcp", "sender", "server", "seconds", 30));
        int dataPort = (int) gone.expect("READY", 10_000).number("port");
        FlowSink sink = new FlowSink(30);
        Channel data = clientSide.connect("tcp://127.0.0.1:" + dataPort, sink).sync().channel();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (sink.bins(10)[0] == 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        gone.close(); // mid-test, the server sending
        assertTrue(data.closeFuture().await(10, TimeUnit.SECONDS), "the server ended the test's connection when its client left");
        awaitServed(port);
        assertTrue(serverLog.toString().contains("ended"), "the server said how the vanished session ended: " + serverLog);
    }

    @Test
    void ipv6IsTestedAsIpv4Is() throws Exception {
        assumeTrue(ipv6Loopback(), "no IPv6 loopback here");
        int port = serve(null, "::1");
        PerfReport r = new PerfClient(clientSide, "::1", port, settings(List.of("tcp", "utp"), 2, PerfClient.Directions.BOTH, false, null),
                PerfClient.Progress.NONE).run();
        assertEquals(4, r.bulk().size());
        r.bulk().forEach(t -> assertTrue(t.ok() && t.bytes() > 0, "moved data over IPv6: " + t));
        assertEquals("[::1]", r.host());
    }

    @Test
    void withAFileUploadsReadItAndDownloadsAreStoredBesideItThenRemoved(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path file = dir.resolve("payload.bin");
        java.nio.file.Files.write(file, new byte[100_000]); // shorter than a test: read again from its start
        int port = serve(null, "127.0.0.1");
        PerfReport r = new PerfClient(clientSide, "127.0.0.1", port, new PerfClient.Settings(List.of("tcp", "utp"), 2,
                PerfClient.Directions.BOTH, Long.MAX_VALUE, false, null, null, SHORT, null, file), PerfClient.Progress.NONE).run();
        assertEquals(4, r.bulk().size());
        r.bulk().forEach(t -> assertTrue(t.ok() && t.bytes() > 100_000, "moved more than the file, through it: " + t));
        try (java.util.stream.Stream<java.nio.file.Path> left = java.nio.file.Files.list(dir)) {
            assertEquals(List.of(file), left.toList(), "the downloads' file was removed");
        }
    }

    @Test
    void aTransportTheServerLacksFailsItsRowWithTheReason() throws Exception {
        int port = serve(null, "127.0.0.1");
        PerfReport r = new PerfClient(clientSide, "127.0.0.1", port,
                settings(List.of("tcp?streams=notanumber"), 2, PerfClient.Directions.UP, false, null), PerfClient.Progress.NONE).run();
        assertEquals(1, r.bulk().size());
        assertTrue(!r.bulk().get(0).ok() && r.bulk().get(0).error().contains("streams"), "the reason names the option: " + r.bulk());
        assertTrue(r.verdict().stream().anyMatch(l -> l.contains("failed")), "the verdict names the failure: " + r.verdict());
    }

    private ControlConnection control(int port) throws InterruptedException {
        AtomicReference<ControlConnection> attached = new AtomicReference<>();
        ChannelFuture f = clientSide.connect("tcp://127.0.0.1:" + port, new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                attached.set(ControlConnection.attach(ch));
            }
        }, ChannelOptions.empty()).sync();
        assertTrue(f.isSuccess());
        return attached.get();
    }

    /** A client is served within 10 s (the server let the last one go). */
    private void awaitServed(int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (;;) {
            try {
                PerfReport r = new PerfClient(clientSide, "127.0.0.1", port, settings(List.of("tcp"), 1, PerfClient.Directions.UP, false, null),
                        PerfClient.Progress.NONE).run();
                assertTrue(r.bulk().get(0).ok(), "served: " + r.bulk());
                return;
            } catch (PerfException busy) {
                if (System.nanoTime() > deadline) {
                    throw busy;
                }
                Thread.sleep(200);
            }
        }
    }

    private static boolean ipv6Loopback() {
        try (java.net.DatagramSocket s = new java.net.DatagramSocket(new InetSocketAddress(InetAddress.getByName("::1"), 0))) {
            return true;
        } catch (Exception e) {
            return false;
        }
    }
}
