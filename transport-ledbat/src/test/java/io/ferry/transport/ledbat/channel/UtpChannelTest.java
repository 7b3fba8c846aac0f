package io.ferry.transport.ledbat.channel;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.Transports;
import io.ferry.transport.UnsupportedOptionException;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.ferry.transport.conformance.LossyUdpRelay;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** uTP-specific channel behaviour on real loopback sockets. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UtpChannelTest {

    private Transports ferry;
    /** The close futures of the digest servers' connections, which close after answering. */
    private final java.util.Queue<io.netty.channel.ChannelFuture> answeredCloses = new java.util.concurrent.ConcurrentLinkedQueue<>();

    @BeforeAll
    void open() {
        ferry = Transports.create();
    }

    @AfterAll
    void close() {
        ferry.close();
    }

    /** A listener that collects everything each connection sends and answers with its SHA-256 at end of stream. */
    private Channel digestServer(ChannelOptions options) throws InterruptedException {
        return digestServer("127.0.0.1", options);
    }

    private Channel digestServer(String host, ChannelOptions options) throws InterruptedException {
        return DigestServer.listen(ferry, host, options, answeredCloses);
    }

    private static MessageDigest sha256() {
        return DigestServer.sha256();
    }

    /** Sends {@code payload}, half-closes, and returns the digest the server answers with. */
    private byte[] sendAndDigest(String uri, byte[] payload, ChannelOptions options) throws Exception {
        return sendAndDigest(uri, payload, options, ch -> { });
    }

    private byte[] sendAndDigest(String uri, byte[] payload, ChannelOptions options,
                                 java.util.function.Consumer<Channel> beforeWrite) throws Exception {
        CompletableFuture<byte[]> answer = new CompletableFuture<>();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        Channel client = ferry.connect(uri, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf b = (ByteBuf) msg;
                byte[] bytes = new byte[b.readableBytes()];
                b.readBytes(bytes);
                b.release();
                got.writeBytes(bytes);
                if (got.size() >= 32) {
                    answer.complete(got.toByteArray());
                }
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                answer.completeExceptionally(cause);
            }
        }, options.toBuilder().set(io.netty.channel.ChannelOption.ALLOW_HALF_CLOSURE, true).build()).sync().channel();
        client.eventLoop().submit(() -> beforeWrite.accept(client)).sync();
        client.writeAndFlush(Unpooled.wrappedBuffer(payload));
        FerryChannels.shutdownOutput(client);
        byte[] digest = answer.get(90, TimeUnit.SECONDS);
        client.close().sync();
        return digest;
    }

    private static int port(Channel server) {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /**
     * A listener on the wildcard address answers each connection from the address its peer dialed:
     * a client's connected socket takes datagrams only from that address. 127.0.0.2 is as local as
     * 127.0.0.1, but the kernel's own choice of source towards 127.0.0.1 would be 127.0.0.1.
     */
    @Test
    void aWildcardListenerAnswersFromTheAddressEachPeerDialed() throws Exception {
        Channel server = digestServer("0.0.0.0", ChannelOptions.empty());
        UtpServerChannel listener = (UtpServerChannel) server;
        int wildcardSockets = listener.sockets();
        boolean native_ = io.netty.channel.epoll.Epoll.isAvailable();
        try {
            String[] addresses = {"127.0.0.1", "127.0.0.2", "127.0.0.3"};
            for (int i = 0; i < addresses.length; i++) {
                String dialed = addresses[i];
                byte[] payload = random(300_000, dialed.hashCode());
                byte[] digest = sendAndDigest("utp://" + dialed + ":" + port(server), payload,
                        ChannelOptions.builder().set(io.netty.channel.ChannelOption.CONNECT_TIMEOUT_MILLIS, 5_000).build());
                assertArrayEquals(sha256().digest(payload), digest, "a connection to " + dialed);
                if (native_) {
                    // the kernel's replies to 127.0.0.1 leave from 127.0.0.1: that peer stays on the wildcard
                    // sockets (spread over the loops); each other dialed address gets a socket of its own
                    assertEquals(wildcardSockets + i, listener.sockets(), "sockets after a connection to " + dialed);
                }
            }
        } finally {
            server.close().sync();
        }
    }

    /**
     * The endpoint takes a connection's datagrams only while its UDP socket is writable: the socket is
     * made unwritable for 300 ms (a user-defined writability flag of its outbound buffer, as a full kernel
     * buffer would make it), the datagrams wait in the core meanwhile and leave on the writability change,
     * and everything arrives.
     */
    @Test
    void datagramsWaitInTheCoreWhileTheUdpSocketIsNotWritableAndAllArrive() throws Exception {
        Channel server = digestServer(ChannelOptions.empty());
        try {
            byte[] payload = random(1 << 20, 91);
            UtpEndpoint[] endpoint = new UtpEndpoint[1];
            byte[] digest = sendAndDigest("utp://127.0.0.1:" + port(server), payload, ChannelOptions.empty(), ch -> {
                endpoint[0] = ((UtpSocketChannel) ch).endpoint();
                io.netty.channel.ChannelOutboundBuffer out = endpoint[0].socket().unsafe().outboundBuffer();
                out.setUserDefinedWritability(1, false);
                ch.eventLoop().schedule(() -> out.setUserDefinedWritability(1, true), 300, TimeUnit.MILLISECONDS);
            });
            assertArrayEquals(sha256().digest(payload), digest);
            assertTrue(endpoint[0].socketWaits() > 0, "the connection's datagrams waited for the socket");
        } finally {
            server.close().sync();
        }
    }

    @Test
    void malformedDatagramsAreDroppedCountedAndHarmless() throws Exception {
        Channel server = digestServer(ChannelOptions.empty());
        try (DatagramSocket attacker = new DatagramSocket()) {
            InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), port(server));
            byte[][] junk = {new byte[0], new byte[]{0x41}, new byte[19], "GET / HTTP/1.1\r\n\r\n".getBytes(),
                    {0x02, 0x07, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, // version 2
                    {0x71, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}; // type 7
            for (byte[] j : junk) {
                attacker.send(new DatagramPacket(j, j.length, target));
            }
            byte[] payload = random(300_000, 1);
            assertArrayEquals(sha256().digest(payload), sendAndDigest("utp://127.0.0.1:" + port(server), payload, ChannelOptions.empty()),
                    "the listener still serves connections intact");
            assertEquals(junk.length, ((UtpServerChannel) server).malformedPacketsDropped());
        } finally {
            server.close().sync();
        }
    }

    @Test
    void aListenerSpreadsItsConnectionsOverEveryEventLoop() throws Exception {
        java.util.Set<io.netty.channel.EventLoop> loops = java.util.concurrent.ConcurrentHashMap.newKeySet();
        Channel server = ferry.listen("utp://127.0.0.1:0", new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                loops.add(ch.eventLoop());
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ctx.writeAndFlush(msg); // echo
                    }
                });
            }
        }, ChannelOptions.empty()).sync().channel();
        int expected = io.netty.channel.epoll.Epoll.isAvailable() ? Runtime.getRuntime().availableProcessors() : 1;
        try {
            assertEquals(expected, ((UtpServerChannel) server).sockets(), "one socket per event loop with epoll");
            // the kernel hashes each client's address and port to one socket: with 32 clients and two
            // sockets, all on one has a chance of 2^-31
            java.util.List<CompletableFuture<Integer>> echoes = new java.util.ArrayList<>();
            java.util.List<Channel> clients = new java.util.ArrayList<>();
            for (int i = 0; i < 32; i++) {
                CompletableFuture<Integer> echoed = new CompletableFuture<>();
                int[] count = {0};
                clients.add(ferry.connect("utp://127.0.0.1:" + port(server), new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        count[0] += ((ByteBuf) msg).readableBytes();
                        ReferenceCountUtil.release(msg);
                        if (count[0] >= 20_000) {
                            echoed.complete(count[0]);
                        }
                    }
                }, ChannelOptions.empty()).sync().channel());
                echoes.add(echoed);
            }
            for (Channel c : clients) {
                c.writeAndFlush(Unpooled.wrappedBuffer(random(20_000, 7)));
            }
            for (CompletableFuture<Integer> e : echoes) {
                assertEquals(20_000, e.get(60, TimeUnit.SECONDS), "every connection is served whole, whichever socket it reached");
            }
            assertEquals(Math.min(expected, 32), loops.size(), "accepted connections run on " + loops.size() + " event loops");
            for (Channel c : clients) {
                c.close().sync();
            }
        } finally {
            server.close().sync();
        }
    }

    @Test
    void packetForAnUnknownConnectionIsAnsweredWithReset() throws Exception {
        Channel server = digestServer(ChannelOptions.empty());
        try (DatagramSocket stranger = new DatagramSocket()) {
            stranger.setSoTimeout(5000);
            byte[] state = {0x21, 0x00, 0x12, 0x34, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 5, 0, 9}; // ST_STATE v1, id 0x1234
            stranger.send(new DatagramPacket(state, state.length, InetAddress.getLoopbackAddress(), port(server)));
            DatagramPacket reply = new DatagramPacket(new byte[64], 64);
            stranger.receive(reply);
            assertEquals(20, reply.getLength());
            assertEquals(0x31, reply.getData()[0] & 0xFF, "ST_RESET, version 1");
            assertEquals(0x1234, ((reply.getData()[2] & 0xFF) << 8) | (reply.getData()[3] & 0xFF), "carries the packet's connection id");
            assertEquals(1, ((UtpServerChannel) server).packetsForUnknownConnections(), "and is counted");
        } finally {
            server.close().sync();
        }
    }

    @Test
    void ledbatSchemeIsAnAliasOfUtp() throws Exception {
        Channel server = digestServer(ChannelOptions.empty());
        try {
            byte[] payload = random(10_000, 2);
            assertArrayEquals(sha256().digest(payload), sendAndDigest("ledbat://127.0.0.1:" + port(server), payload, ChannelOptions.empty()));
            assertEquals("utp", ferry.transport("ledbat").name());
        } finally {
            server.close().sync();
        }
    }

    @Test
    void unknownCongestionControlListsTheAvailableOnes() {
        UnsupportedOptionException e = assertThrows(UnsupportedOptionException.class, () -> ferry.connect("utp://127.0.0.1:9",
                new ChannelInboundHandlerAdapter(), ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, "reno-classic").build()));
        assertTrue(e.getMessage().contains("'reno-classic' is not available; available: ") && e.getMessage().contains("ledbat")
                && e.getMessage().contains("westwood+"), e.getMessage());
    }

    @Test
    void outOfRangeProtocolOptionNamesTheOption() {
        UnsupportedOptionException e = assertThrows(UnsupportedOptionException.class, () -> ferry.connect("utp://127.0.0.1:9",
                new ChannelInboundHandlerAdapter(), ChannelOptions.builder().set(FerryChannelOption.PACKET_SIZE, 100).build()));
        assertTrue(e.getMessage().contains("PACKET_SIZE"), e.getMessage());
        UnsupportedOptionException pacing = assertThrows(UnsupportedOptionException.class, () -> ferry.connect("utp://127.0.0.1:9",
                new ChannelInboundHandlerAdapter(), ChannelOptions.builder().set(FerryChannelOption.PACING_RATE, 1000L).build()));
        assertTrue(pacing.getMessage().contains("PACING_RATE"), pacing.getMessage());
        UnsupportedOptionException belowSize = assertThrows(UnsupportedOptionException.class, () -> ferry.connect("utp://127.0.0.1:9",
                new ChannelInboundHandlerAdapter(), ChannelOptions.builder().set(FerryChannelOption.RECEIVE_BUFFER_SIZE, 8 << 20)
                        .set(UtpChannelOption.RECEIVE_BUFFER_MAX, 4 << 20).build()));
        assertTrue(belowSize.getMessage().contains("receiveBufferMax"), belowSize.getMessage());
    }

    @Test
    void honoursPacketSizeTargetDelayAndCongestionControlOptions() throws Exception {
        ChannelOptions options = ChannelOptions.builder()
                .set(FerryChannelOption.PACKET_SIZE, 600)
                .set(FerryChannelOption.CONGESTION_CONTROL, "ledbat-strict")
                .set(UtpChannelOption.TARGET_DELAY, Duration.ofMillis(25))
                .set(FerryChannelOption.SEND_BUFFER_SIZE, 256 * 1024)
                .set(UtpChannelOption.SEND_BUFFER_MAX, 1024 * 1024)
                .set(UtpChannelOption.RECEIVE_BUFFER_MAX, 8 * 1024 * 1024)
                .build();
        Channel server = digestServer(options);
        try {
            byte[] payload = random(200_000, 3);
            assertArrayEquals(sha256().digest(payload), sendAndDigest("utp://127.0.0.1:" + port(server), payload, options));
        } finally {
            server.close().sync();
        }
    }

    @Test
    void statisticsReportRttWindowAndQueuingDelay() throws Exception {
        Channel server = digestServer(ChannelOptions.empty());
        try {
            CompletableFuture<Void> replied = new CompletableFuture<>();
            Channel client = ferry.connect("utp://127.0.0.1:" + port(server), new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ReferenceCountUtil.release(msg);
                    replied.complete(null);
                }
            }, ChannelOptions.builder().set(io.netty.channel.ChannelOption.ALLOW_HALF_CLOSURE, true).build()).sync().channel();
            client.writeAndFlush(Unpooled.wrappedBuffer(random(2_000_000, 4))).sync();
            FerryChannels.shutdownOutput(client);
            replied.get(30, TimeUnit.SECONDS);
            TransportStatistics stats = FerryChannels.statistics(client);
            assertEquals("utp", stats.transport());
            assertEquals(2_000_000, stats.bytesSent());
            assertTrue(stats.smoothedRtt().isPresent(), stats.toString());
            assertTrue(stats.congestionWindowBytes().orElseThrow() > 0, stats.toString());
            assertTrue(stats.queuingDelay().isPresent(), "LEDBAT knows its queuing delay: " + stats);
            assertTrue(stats.retransmissions().isPresent() && stats.packetsLost().isPresent(), stats.toString());
            client.close().sync();
        } finally {
            server.close().sync();
        }
    }

    @Test
    void deliversIntactThroughTwentyFivePercentLossAndFiftyMillisecondsDelay() throws Exception {
        Channel server = digestServer(ChannelOptions.empty());
        InetSocketAddress serverAddress = new InetSocketAddress(InetAddress.getLoopbackAddress(), port(server));
        try (LossyUdpRelay relay = new LossyUdpRelay(serverAddress, 0.25, 25, 42)) {
            byte[] payload = random(256 * 1024, 5);
            byte[] digest = sendAndDigest("utp://127.0.0.1:" + relay.address().getPort(), payload, ChannelOptions.empty());
            assertArrayEquals(sha256().digest(payload), digest, "every byte arrived through a lossy 50 ms RTT path");
            assertTrue(relay.dropped() > 0, "the relay really dropped datagrams: " + relay.dropped());
            // the server's close completes once the client acknowledged the digest and the FIN, through the relay
            for (io.netty.channel.ChannelFuture closing : answeredCloses) {
                assertTrue(closing.await(60, TimeUnit.SECONDS), "the server's close completed");
                assertTrue(closing.isSuccess(), () -> "the server's close succeeded: " + closing.cause());
            }
        } finally {
            server.close().sync();
        }
    }

    @Test
    void abortResetsThePeer() throws Exception {
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        CompletableFuture<Throwable> serverError = new CompletableFuture<>();
        Channel server = ferry.listen("utp://127.0.0.1:0", new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        accepted.complete(ctx.channel());
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        serverError.complete(cause);
                    }
                });
            }
        }).sync().channel();
        try {
            Channel client = ferry.connect("utp://127.0.0.1:" + port(server), new ChannelInboundHandlerAdapter()).sync().channel();
            client.writeAndFlush(Unpooled.wrappedBuffer(new byte[100])).sync();
            Channel child = accepted.get(10, TimeUnit.SECONDS);
            FerryChannels.abort(client).sync();
            assertTrue(child.closeFuture().await(10, TimeUnit.SECONDS), "the peer's channel closes on RESET");
            Throwable cause = serverError.get(5, TimeUnit.SECONDS);
            assertInstanceOf(java.io.IOException.class, cause);
            assertTrue(cause.getMessage().contains("reset by peer"), cause.getMessage());
        } finally {
            server.close().sync();
        }
    }
}
