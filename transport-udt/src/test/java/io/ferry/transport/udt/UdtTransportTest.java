package io.ferry.transport.udt;

import com.barchart.udt.SocketUDT;
import com.barchart.udt.TypeUDT;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.Transports;
import io.ferry.transport.UnsupportedOptionException;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.DuplexChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** What UDT adds to the conformance suite: native options, modes, rendezvous, statistics, native lifecycle. */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class UdtTransportTest {

    private Transports ferry;

    @BeforeEach
    void open() {
        ferry = Transports.create();
    }

    @AfterEach
    void close() {
        if (ferry != null) {
            ferry.close();
        }
    }

    // ------------------------------------------------------------------ options

    @Test
    void optionsReachTheNativeSocketAndAcceptedConnectionsInheritThem() throws Exception {
        int mss = 1400;
        ChannelOptions options = ChannelOptions.builder()
                .set(UdtChannelOption.MSS, mss)
                .set(UdtChannelOption.FLOW_WINDOW, 30_000)
                .set(UdtChannelOption.UDT_SEND_BUFFER, 4 << 20)
                .set(UdtChannelOption.UDT_RECEIVE_BUFFER, 6 << 20)
                .set(UdtChannelOption.UDP_SEND_BUFFER, 1 << 20)
                .set(UdtChannelOption.UDP_RECEIVE_BUFFER, 2 << 20)
                .set(UdtChannelOption.MAX_BANDWIDTH, 50_000_000L)
                .set(FerryChannelOption.LINGER, Duration.ofSeconds(3))
                .set(FerryChannelOption.CONGESTION_CONTROL, "udt") // under "ferry" UDT_MAXBW is the pace it sets
                .build();
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        Channel server = listen(options, accepted::complete);
        Channel client = connect(server, options, ch -> { });
        Channel child = accepted.get(20, TimeUnit.SECONDS);
        int unit = mss - UdtSettings.HEADERS; // UDT keeps its buffers in whole packets
        for (Channel ch : List.of(client, child)) {
            assertEquals(mss, ch.config().getOption(UdtChannelOption.MSS), ch + " MSS");
            assertEquals(30_000, ch.config().getOption(UdtChannelOption.FLOW_WINDOW), ch + " flow window");
            assertEquals((4 << 20) / unit * unit, ch.config().getOption(UdtChannelOption.UDT_SEND_BUFFER), ch + " UDT send buffer");
            assertEquals((6 << 20) / unit * unit, ch.config().getOption(UdtChannelOption.UDT_RECEIVE_BUFFER), ch + " UDT receive buffer");
            assertEquals(1 << 20, ch.config().getOption(UdtChannelOption.UDP_SEND_BUFFER), ch + " UDP send buffer");
            assertEquals(2 << 20, ch.config().getOption(UdtChannelOption.UDP_RECEIVE_BUFFER), ch + " UDP receive buffer");
            assertEquals(50_000_000L, ch.config().getOption(UdtChannelOption.MAX_BANDWIDTH), ch + " max bandwidth");
            assertEquals(Duration.ofSeconds(3), ch.config().getOption(FerryChannelOption.LINGER), ch + " linger");
        }
        assertEquals(mss, ((UdtSocketChannel) client).connection().negotiatedMss(), "the handshake carried the MSS");
        closeAll(client, server);
    }

    @Test
    void defaultsAreSizedForALongFatPathNotForALan() throws Exception {
        Channel server = listen(ChannelOptions.empty(), ch -> { });
        Channel client = connect(server, ChannelOptions.empty(), ch -> { });
        int unit = UdtSettings.DEFAULT_MSS - UdtSettings.HEADERS;
        assertEquals(UdtSettings.DEFAULT_MSS, client.config().getOption(UdtChannelOption.MSS));
        assertEquals((32 << 20) / unit * unit, client.config().getOption(UdtChannelOption.UDT_SEND_BUFFER));
        assertEquals((32 << 20) / unit * unit, client.config().getOption(UdtChannelOption.UDT_RECEIVE_BUFFER),
                "the flow window is large enough that UDT does not clamp the receive buffer");
        assertEquals(4 << 20, client.config().getOption(UdtChannelOption.UDP_RECEIVE_BUFFER));
        assertEquals(FerryChannelOption.DEFAULT_LINGER, client.config().getOption(FerryChannelOption.LINGER));
        assertEquals(-1L, client.config().getOption(UdtChannelOption.MAX_BANDWIDTH));
        closeAll(client, server);
    }

    @Test
    void commonOptionsMapToTheirUdtCounterparts() throws Exception {
        ChannelOptions options = ChannelOptions.builder()
                .set(FerryChannelOption.PACKET_SIZE, 1200)
                .set(FerryChannelOption.SEND_BUFFER_SIZE, 2 << 20)
                .set(FerryChannelOption.PACING_RATE, 10_000_000L)
                .set(FerryChannelOption.CONGESTION_CONTROL, "udt")
                .build();
        Channel server = listen(ChannelOptions.empty(), ch -> { });
        Channel client = connect(server, options, ch -> { });
        assertEquals(1228, client.config().getOption(UdtChannelOption.MSS), "packet size is the payload; MSS adds IP and UDP headers");
        assertEquals((2 << 20) / 1200 * 1200, client.config().getOption(UdtChannelOption.UDT_SEND_BUFFER));
        assertEquals(10_000_000L, client.config().getOption(UdtChannelOption.MAX_BANDWIDTH));
        closeAll(client, server);
    }

    @Test
    void badValuesAreRefusedWithTheOptionNamed() {
        IllegalArgumentException mss = assertThrows(IllegalArgumentException.class,
                () -> ferry.connect("udt://127.0.0.1:9", new ChannelInboundHandlerAdapter(),
                        ChannelOptions.builder().set(UdtChannelOption.MSS, 10).build()));
        assertTrue(mss.getMessage().contains("MSS"), mss.getMessage());
        UnsupportedOptionException cc = assertThrows(UnsupportedOptionException.class,
                () -> ferry.connect("udt://127.0.0.1:9", new ChannelInboundHandlerAdapter(),
                        ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, "no-such-control").build()));
        assertTrue(cc.getMessage().contains("'udt'") && cc.getMessage().contains("no-such-control") && cc.getMessage().contains("cubic"),
                cc.getMessage());
        IllegalArgumentException rendezvous = assertThrows(IllegalArgumentException.class,
                () -> ferry.connect("udt://127.0.0.1:9", new ChannelInboundHandlerAdapter(),
                        ChannelOptions.builder().set(UdtChannelOption.RENDEZVOUS, true).build()));
        assertTrue(rendezvous.getMessage().contains("BIND_ADDRESS"), rendezvous.getMessage());
        IllegalArgumentException modes = assertThrows(IllegalArgumentException.class,
                () -> ferry.listen("udt://127.0.0.1:0", new ChannelInboundHandlerAdapter(),
                        ChannelOptions.builder().set(UdtChannelOption.MESSAGE_MODE, true).set(UdtChannelOption.RAW_STREAM, true).build()));
        assertTrue(modes.getMessage().contains("MESSAGE_MODE") && modes.getMessage().contains("RAW_STREAM"), modes.getMessage());
    }

    // ------------------------------------------------------------------ modes

    @Test
    void messageModeDeliversEveryWriteAsOneWholeMessage() throws Exception {
        ChannelOptions messages = ChannelOptions.builder().set(UdtChannelOption.MESSAGE_MODE, true).build();
        Received received = new Received(Integer.MAX_VALUE);
        Channel server = listen(messages, ch -> ch.pipeline().addLast(received));
        Channel client = connect(server, messages, ch -> { });
        int[] sizes = {1, 1000, 1472, 5000, 65_536, 3};
        List<byte[]> sent = new ArrayList<>();
        for (int size : sizes) {
            byte[] m = random(size, size);
            sent.add(m);
            client.writeAndFlush(Unpooled.wrappedBuffer(m)).sync();
        }
        byte[] parts = random(300, 99);
        sent.add(parts);
        client.writeAndFlush(Unpooled.wrappedBuffer(Unpooled.directBuffer(100).writeBytes(parts, 0, 100),
                Unpooled.wrappedBuffer(parts, 100, 200))).sync();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (received.buffers.size() < sent.size() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(sent.size(), received.buffers.size(), "one read per message, a composite buffer included");
        for (int i = 0; i < sent.size(); i++) {
            assertArrayEquals(sent.get(i), received.buffers.get(i), "message " + i + " whole and in order");
        }
        ChannelFuture tooBig = client.writeAndFlush(Unpooled.wrappedBuffer(new byte[70_000]));
        assertTrue(tooBig.await(10, TimeUnit.SECONDS));
        assertFalse(tooBig.isSuccess());
        assertTrue(tooBig.cause().getMessage().contains("MAX_MESSAGE_SIZE"), tooBig.cause().getMessage());
        closeAll(client, server);
    }

    @Test
    void rawStreamIsPlainUdtThatABarchartSocketReads() throws Exception {
        {
            SocketUDT plain = new SocketUDT(TypeUDT.STREAM);
            plain.setBlocking(true);
            plain.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            plain.listen(1);
            CompletableFuture<Void> readerDone = new CompletableFuture<>();
            CompletableFuture<byte[]> got = CompletableFuture.supplyAsync(() -> {
                try {
                    SocketUDT peer = plain.accept();
                    byte[] all = new byte[100_000];
                    int n = 0;
                    while (n < all.length) {
                        n += peer.receive(all, n, all.length);
                    }
                    readerDone.thenRun(() -> {
                        try {
                            peer.close();
                        } catch (IOException ignored) {
                            // closing the reference peer
                        }
                    });
                    return all;
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            ChannelOptions raw = ChannelOptions.builder().set(UdtChannelOption.RAW_STREAM, true).build();
            Channel client = ferry.connect("udt://127.0.0.1:" + plain.getLocalInetPort(), new ChannelInboundHandlerAdapter(), raw)
                    .sync().channel();
            byte[] payload = random(100_000, 5);
            client.writeAndFlush(Unpooled.wrappedBuffer(payload)).sync();
            assertArrayEquals(payload, got.get(30, TimeUnit.SECONDS), "no Ferry framing on the wire");
            ChannelFuture half = ((DuplexChannel) client).shutdownOutput();
            assertTrue(half.await(10, TimeUnit.SECONDS));
            assertInstanceOf(UnsupportedOperationException.class, half.cause());
            assertTrue(half.cause().getMessage().contains("half-close"), half.cause().getMessage());
            // the client's close lingers until the reference peer acknowledged every byte (UDT4 acknowledges
            // every 10 ms; its SHUTDOWN carries no acknowledgement), so the peer closes after it, not before:
            // closed first, it left the last bytes unacknowledged and the close failed truthfully (udt soak)
            client.close().sync();
            readerDone.complete(null);
            plain.close();
        }
    }

    @Test
    void rawPeerCloseIsAnOrderlyEndOfStream() throws Exception {
        ChannelOptions raw = ChannelOptions.builder().set(UdtChannelOption.RAW_STREAM, true).build();
        Received received = new Received(1 << 20);
        Channel server = listen(raw, ch -> ch.pipeline().addLast(received));
        Channel client = connect(server, raw, ch -> { });
        byte[] payload = random(1 << 20, 6);
        client.writeAndFlush(Unpooled.wrappedBuffer(payload)).addListener(f -> client.close());
        assertArrayEquals(payload, received.all.get(30, TimeUnit.SECONDS));
        received.inactive.get(30, TimeUnit.SECONDS);
        assertEquals(List.of(), received.errors, "a peer's close is not an error");
        closeAll(server);
    }

    /*
     * The peer writes, closes, and its close has reached this side before this side starts reading:
     * UDT's epoll signals neither those bytes nor the close to a read registered after the break (a
     * ferry sender with a slow channelActive hung 30 s on a receiver's quick refusal). A write in that
     * state fails, but must not close the channel before the peer's last bytes are read.
     */
    @ParameterizedTest(name = "raw stream: {0}, write after the close: {1}")
    @CsvSource({"false, false", "true, false", "false, true", "true, true"})
    void bytesSentBeforeThePeerClosedArriveWhenReadingStartsAfterTheClose(boolean rawStream, boolean writeFirst) throws Exception {
        ChannelOptions options = ChannelOptions.builder().set(UdtChannelOption.RAW_STREAM, rawStream).build();
        byte[] payload = random(2 << 20, 8);
        CompletableFuture<Void> peerClosed = new CompletableFuture<>();
        Channel server = listen(options, ch -> ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                ctx.writeAndFlush(Unpooled.wrappedBuffer(payload)).addListener(ChannelFutureListener.CLOSE);
                ctx.channel().closeFuture().addListener(f -> peerClosed.complete(null));
            }
        }));
        Received received = new Received(payload.length);
        UdtSocketChannel client = (UdtSocketChannel) connect(server, options, ch -> {
            ch.config().setAutoRead(false);
            ch.pipeline().addLast(received);
        });
        peerClosed.get(30, TimeUnit.SECONDS);
        if (rawStream) {
            // UDT's shutdown is the raw stream's close; a framed peer's connection waits for our end (TCP's FIN_WAIT_2)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (client.connection().phase() != io.ferry.transport.udt.proto.core.UdtConnection.Phase.CLOSED && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(client.connection().phase() == io.ferry.transport.udt.proto.core.UdtConnection.Phase.CLOSED, "the peer's close reached this side");
        }

        if (writeFirst) {
            ChannelFuture late = client.writeAndFlush(Unpooled.copiedBuffer("too late", StandardCharsets.US_ASCII)).await();
            if (rawStream) {
                assertInstanceOf(IOException.class, late.cause(), "a write to a closed peer fails");
            } else {
                // as over TCP: the write leaves, and the closed peer resets the connection when it arrives
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (client.connection().phase() != io.ferry.transport.udt.proto.core.UdtConnection.Phase.CLOSED && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertTrue(client.connection().phase() == io.ferry.transport.udt.proto.core.UdtConnection.Phase.CLOSED, "the peer reset the connection");
            }
            assertTrue(client.isActive(), "the peer's last bytes are still to be read");
        }
        client.config().setAutoRead(true);
        assertArrayEquals(payload, received.all.get(30, TimeUnit.SECONDS));
        received.inactive.get(30, TimeUnit.SECONDS);
        assertEquals(List.of(), received.errors, "an orderly close, not an error");
        closeAll(server);
    }

    /*
     * The peer closes as soon as it holds every byte, while this side's close still lingers, before or
     * after this side's end-of-stream frame went out (Netty's FileRegion test on a CI run: its server
     * closed first and the client's close failed though nothing was lost; the break fell between the
     * close's status check and its end-of-stream send, an instant this test cannot aim at, so it runs a
     * few rounds). Every byte was acknowledged, so the close succeeds.
     */
    @ParameterizedTest(name = "round {0}")
    @CsvSource({"1", "2", "3", "4", "5"})
    void aCloseThatLingersWhileThePeerClosesHoldingEverythingSucceeds(int round) throws Exception {
        byte[] payload = random(4 << 20, 20 + round);
        Channel server = listen(ChannelOptions.empty(), ch -> ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            long seen;

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                seen += ((io.netty.buffer.ByteBuf) msg).readableBytes();
                io.netty.util.ReferenceCountUtil.release(msg);
                if (seen == payload.length) {
                    ctx.close();
                }
            }
        }));
        Channel client = connect(server, ChannelOptions.empty(), ch -> ch.config().setAutoRead(false));
        client.writeAndFlush(Unpooled.wrappedBuffer(payload));
        ChannelFuture closed = client.close().await();
        assertTrue(closed.isSuccess(), "nothing was lost: " + closed.cause());
        closeAll(server);
    }

    @Test
    void framedPeerCloseIsAnEndOfStreamAndAbortIsAReset() throws Exception {
        Received graceful = new Received(1 << 20);
        Channel server = listen(ChannelOptions.empty(), ch -> ch.pipeline().addLast(graceful));
        Channel client = connect(server, ChannelOptions.empty(), ch -> { });
        client.writeAndFlush(Unpooled.wrappedBuffer(random(1 << 20, 7))).addListener(f -> client.close());
        graceful.all.get(30, TimeUnit.SECONDS);
        graceful.inactive.get(30, TimeUnit.SECONDS);
        assertEquals(List.of(), graceful.errors, "a graceful close ends the stream without an error");
        closeAll(server);

        Received reset = new Received(5);
        Channel server2 = listen(ChannelOptions.empty(), ch -> ch.pipeline().addLast(reset));
        Channel client2 = connect(server2, ChannelOptions.empty(), ch -> { });
        client2.writeAndFlush(Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII)).sync();
        reset.all.get(30, TimeUnit.SECONDS);
        FerryChannels.abort(client2).sync();
        reset.inactive.get(30, TimeUnit.SECONDS);
        assertEquals(1, reset.errors.size(), "an abort reaches the peer as a reset: " + reset.errors);
        assertTrue(reset.errors.get(0).getMessage().contains("reset"), reset.errors.get(0).getMessage());
        closeAll(server2);
    }

    @Test
    void rendezvousConnectsTwoPeersWithoutAListener() throws Exception {
        int portA = freeUdpPort();
        int portB = freeUdpPort();
        Received atA = new Received(4);
        Received atB = new Received(4);
        ChannelFuture a = ferry.connect("udt://127.0.0.1:" + portB, atA, rendezvous(portA));
        ChannelFuture b = ferry.connect("udt://127.0.0.1:" + portA, atB, rendezvous(portB));
        assertTrue(a.await(40, TimeUnit.SECONDS) && b.await(40, TimeUnit.SECONDS), "both sides connected in time");
        assertTrue(a.isSuccess(), "A: " + a.cause());
        assertTrue(b.isSuccess(), "B: " + b.cause());
        a.channel().writeAndFlush(Unpooled.copiedBuffer("ping", StandardCharsets.US_ASCII));
        b.channel().writeAndFlush(Unpooled.copiedBuffer("pong", StandardCharsets.US_ASCII));
        assertEquals("pong", new String(atA.all.get(20, TimeUnit.SECONDS), StandardCharsets.US_ASCII));
        assertEquals("ping", new String(atB.all.get(20, TimeUnit.SECONDS), StandardCharsets.US_ASCII));
        assertEquals(Boolean.TRUE, a.channel().config().getOption(UdtChannelOption.RENDEZVOUS));
        closeAll(a.channel(), b.channel());
    }

    /** The kernel may give a client the very port it dials (a listener's, just freed): refused, not a 30 s hang. */
    @Test
    void aClientWhoseOwnSocketHasTheAddressItDialsIsRefusedAtOnce() throws Exception {
        InetSocketAddress self = new InetSocketAddress(InetAddress.getLoopbackAddress(), freeUdpPort());
        ChannelOptions options = ChannelOptions.builder()
                .set(FerryChannelOption.CONNECT_TIMEOUT, Duration.ofSeconds(30)).build();
        ChannelFuture f = ferry.transport("udt").bootstrapping(options).bootstrap()
                .handler(new ChannelInboundHandlerAdapter())
                .connect(self, self);
        assertTrue(f.await(10, TimeUnit.SECONDS), "refused well before the 30 s connect timeout");
        assertInstanceOf(java.net.ConnectException.class, f.cause(), "a refusal: " + f.cause());
        assertFalse(f.cause() instanceof io.netty.channel.ConnectTimeoutException, "not a timeout: " + f.cause());
        assertTrue(f.cause().getMessage().contains(String.valueOf(self.getPort())), f.cause().getMessage());
        assertTrue(f.channel().closeFuture().await(10, TimeUnit.SECONDS), "the channel closed");
    }

    // ------------------------------------------------------------------ statistics

    @Test
    void statisticsComeFromTheConnection() throws Exception {
        int size = 8 << 20;
        Received received = new Received(size);
        Channel server = listen(ChannelOptions.empty(), ch -> ch.pipeline().addLast(received));
        Channel client = connect(server, ChannelOptions.empty(), ch -> { });
        client.writeAndFlush(Unpooled.wrappedBuffer(random(size, 8))).sync();
        received.all.get(60, TimeUnit.SECONDS);
        TransportStatistics stats = FerryChannels.statistics(client);
        assertEquals("udt", stats.transport());
        assertEquals(size, stats.bytesSent());
        assertTrue(stats.smoothedRtt().isPresent(), "RTT: " + stats);
        assertTrue(stats.estimatedBandwidth().orElse(0) > 0, "estimated bandwidth: " + stats);
        assertTrue(stats.sendRate().orElse(0) > 0, "send rate: " + stats);
        assertTrue(stats.retransmissions().isPresent() && stats.packetsLost().isPresent(), "loss counters: " + stats);
        assertTrue(stats.congestionWindowBytes().orElse(0) > 0, "congestion window: " + stats);
        closeAll(client, server);
    }

    // ------------------------------------------------------------------ no native code, IPv6

    /**
     * udt:// runs on Ferry's own engine: a JVM that moves data over it maps no UDT library (barchart-udt
     * is on this test class path as the reference peer, so the check runs in a JVM of its own).
     */
    @Test
    void aJvmMovingDataOverUdtMapsNoNativeUdtLibrary() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/self/maps")), "needs /proc/self/maps");
        ProbeRun run = runProbe(List.of(), "transfer");
        assertTrue(run.exited && run.exitCode == 0, run.output);
        assertTrue(run.output.contains("native UDT libraries mapped: none"), run.output);
    }

    @Test
    void ipv6MovesDataAsIpv4Does() throws Exception {
        InetAddress v6 = InetAddress.getByName("::1");
        assumeTrue(canBind(v6), "no IPv6 loopback here");
        int size = 2 << 20;
        Received received = new Received(size);
        Channel server = ferry.listen("udt://[::1]:0", received).sync().channel();
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        Channel client = ferry.connect("udt://[::1]:" + port, new ChannelInboundHandlerAdapter()).sync().channel();
        byte[] payload = random(size, 46);
        client.writeAndFlush(Unpooled.wrappedBuffer(payload)).sync();
        assertArrayEquals(payload, received.all.get(30, TimeUnit.SECONDS));
        assertEquals(v6, ((InetSocketAddress) client.remoteAddress()).getAddress());
        closeAll(client, server);
    }

    private static boolean canBind(InetAddress address) {
        try (java.net.DatagramSocket s = new java.net.DatagramSocket(new InetSocketAddress(address, 0))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void aUdtJvmExitsByItselfAfterClosingItsChannelsEveryTime() throws Exception {
        for (int i = 0; i < 5; i++) {
            ProbeRun run = runProbe(List.of(), "transfer");
            assertTrue(run.exited, "run " + i + " exited on its own (no native thread kept it alive): " + run.output);
            assertEquals(0, run.exitCode, "run " + i + ": " + run.output);
            assertTrue(run.output.contains("transferred 1048576 bytes"), run.output);
        }
    }

    // ------------------------------------------------------------------ helpers

    private static final class ProbeRun {
        boolean exited;
        int exitCode;
        String output;
    }

    private static ProbeRun runProbe(List<String> jvmArgs, String mode) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.addAll(Arrays.asList("-cp", System.getProperty("java.class.path"), UdtExitProbe.class.getName(), mode));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return e.toString();
            }
        });
        ProbeRun run = new ProbeRun();
        run.exited = p.waitFor(60, TimeUnit.SECONDS);
        if (!run.exited) {
            p.destroyForcibly();
        }
        run.exitCode = run.exited ? p.exitValue() : -1;
        run.output = out.get(10, TimeUnit.SECONDS);
        return run;
    }

    private ChannelOptions rendezvous(int localPort) {
        return ChannelOptions.builder()
                .set(UdtChannelOption.RENDEZVOUS, true)
                .set(UdtChannelOption.BIND_ADDRESS, new InetSocketAddress("127.0.0.1", localPort))
                .build();
    }

    @Test
    void aCloseToAPeerThatEndedItsSideAndVanishedCompletesWithoutWaitingOutItsLinger() throws Exception {
        // UDT has no TIME_WAIT: a peer whose own close completed (here: killed) has no socket left to
        // acknowledge our end of stream. It holds every byte we sent and ended its side, so nothing is lost;
        // before, such a close waited out its linger and failed (a teardown over 25 % loss did that)
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        Received fromPeer = new Received(10);
        Channel server = listen(ChannelOptions.builder().set(io.netty.channel.ChannelOption.ALLOW_HALF_CLOSURE, true)
                .set(FerryChannelOption.LINGER, Duration.ofSeconds(10)).build(), ch -> {
            ch.pipeline().addLast(fromPeer);
            accepted.complete(ch);
        });
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), UdtExitProbe.class.getName(), "vanish", String.valueOf(port)));
        Process peer = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            CompletableFuture<String> readReply = CompletableFuture.supplyAsync(() -> {
                StringBuilder out = new StringBuilder();
                try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = lines.readLine()) != null; ) {
                        out.append(line).append('\n');
                        if (line.equals("READ 64")) {
                            return out.toString();
                        }
                    }
                } catch (IOException e) {
                    out.append(e);
                }
                throw new IllegalStateException("the peer ended without reading: " + out);
            });
            Channel child = accepted.get(30, TimeUnit.SECONDS);
            fromPeer.inputShutdown.get(30, TimeUnit.SECONDS);
            child.writeAndFlush(Unpooled.wrappedBuffer(new byte[64])).sync();
            readReply.get(30, TimeUnit.SECONDS);
            peer.destroyForcibly();
            assertTrue(peer.waitFor(10, TimeUnit.SECONDS));
            long start = System.nanoTime();
            ChannelFuture closed = child.close();
            assertTrue(closed.await(20, TimeUnit.SECONDS), "the close never completed");
            System.out.printf("close to a vanished peer: %.2f s%n", (System.nanoTime() - start) / 1e9);
            assertTrue(closed.isSuccess(), () -> "the close failed: " + closed.cause());
            long shutdown = System.nanoTime();
            ferry.close();
            System.out.printf("transports closed in %.2f s%n", (System.nanoTime() - shutdown) / 1e9);
        } finally {
            peer.destroyForcibly();
        }
    }

    @Test
    void aConnectionTheServerClosesAtOnceConnectsAndThenEnds() throws Exception {
        // as over TCP, where the kernel completes the handshake before the server's close: the connect
        // succeeds and the connection then ends; UDT reports such a socket BROKEN, not CONNECTED, when its
        // handshake and the peer's close are both in before the client looks (Netty's SocketHalfClosedTest)
        Channel server = listen(ChannelOptions.empty(), ch -> ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                ctx.close();
            }
        }));
        int failed = 0;
        String failure = null;
        for (int i = 0; i < 40; i++) {
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            ChannelFuture f = ferry.connect("udt://127.0.0.1:" + port, new ChannelInboundHandlerAdapter(), ChannelOptions.empty())
                    .awaitUninterruptibly();
            if (!f.isSuccess()) {
                failed++;
                failure = String.valueOf(f.cause());
                continue;
            }
            assertTrue(f.channel().closeFuture().await(10, TimeUnit.SECONDS), "the connection ended after the server's close");
        }
        assertEquals(0, failed, failed + " of 40 connects failed, e.g. " + failure);
        server.close().sync();
    }

    private Channel listen(ChannelOptions options, Consumer<Channel> child) throws InterruptedException {
        return ferry.listen("udt://127.0.0.1:0", initializer(child), options).sync().channel();
    }

    private Channel connect(Channel server, ChannelOptions options, Consumer<Channel> setup) throws InterruptedException {
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        return ferry.connect("udt://127.0.0.1:" + port, initializer(setup), options).sync().channel();
    }

    private static ChannelHandler initializer(Consumer<Channel> setup) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                setup.accept(ch);
            }
        };
    }

    private static void closeAll(Channel... channels) throws InterruptedException {
        for (Channel c : channels) {
            assertTrue(c.close().await(30, TimeUnit.SECONDS), "closed in time: " + c);
        }
    }

    private static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    private static int freeUdpPort() throws IOException {
        try (java.net.DatagramSocket udp = new java.net.DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            return udp.getLocalPort();
        }
    }
}
