package io.ferry.transport.tcp;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.Transports;
import io.ferry.transport.UnsupportedOptionException;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** TCP-specific behaviour: kernel options per connection, TCP_INFO statistics, clear errors. */
class TcpTransportTest {

    private Transports ferry;

    @BeforeEach
    void open() {
        ferry = Transports.create();
    }

    @AfterEach
    void close() {
        ferry.close();
    }

    private boolean epoll() {
        return ((TcpTransport) ferry.transport("tcp")).io().isNative();
    }

    private Channel listen(ChannelOptions options, CompletableFuture<Channel> accepted) throws InterruptedException {
        ChannelFuture f = ferry.listen("tcp://127.0.0.1:0", new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        accepted.complete(ctx.channel());
                    }

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ReferenceCountUtil.release(msg);
                    }
                });
            }
        }, options);
        assertTrue(f.await(10, TimeUnit.SECONDS) && f.isSuccess(), () -> "listen: " + f.cause());
        return f.channel();
    }

    private Channel connect(Channel server, ChannelOptions options) throws InterruptedException {
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        ChannelFuture f = ferry.connect("tcp://127.0.0.1:" + port, new ChannelInboundHandlerAdapter(), options);
        assertTrue(f.await(10, TimeUnit.SECONDS) && f.isSuccess(), () -> "connect: " + f.cause());
        return f.channel();
    }

    private static String congestionControlOf(Channel ch) {
        return TcpSocketOptions.congestionControlName(ch.config().getOption(TcpSocketOptions.TCP_CONGESTION));
    }

    /** Completes {@code largest} with the largest single read once {@code total} bytes arrived. */
    private static final class LargestRead extends ChannelInboundHandlerAdapter {
        private final long total;
        private final CompletableFuture<Integer> largest;
        private long received;
        private int max;

        LargestRead(long total, CompletableFuture<Integer> largest) {
            this.total = total;
            this.largest = largest;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            int n = ((io.netty.buffer.ByteBuf) msg).readableBytes();
            ReferenceCountUtil.release(msg);
            max = Math.max(max, n);
            received += n;
            if (received >= total) {
                largest.complete(max);
            }
        }
    }

    /** Listens, and returns the largest single read each accepted connection saw once {@code total} bytes arrived. */
    private CompletableFuture<Integer> largestReadOf(long total, ChannelOptions options, CompletableFuture<Channel> listener) throws InterruptedException {
        CompletableFuture<Integer> largest = new CompletableFuture<>();
        ChannelFuture f = ferry.listen("tcp://127.0.0.1:0", new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new LargestRead(total, largest));
            }
        }, options);
        assertTrue(f.await(10, TimeUnit.SECONDS) && f.isSuccess(), () -> "listen: " + f.cause());
        listener.complete(f.channel());
        return largest;
    }

    @Test
    void channelsMadeThroughBootstrapsReadInNettysOwnSizes() throws Exception {
        int total = 16 << 20;
        CompletableFuture<Integer> largest = new CompletableFuture<>();
        io.ferry.transport.Bootstrapping parts = ferry.bootstrapping("tcp");
        Channel server = parts.serverBootstrap().childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new LargestRead(total, largest));
                    }
                }).bind(new java.net.InetSocketAddress("127.0.0.1", 0)).sync().channel();
        Channel client = parts.bootstrap().handler(new ChannelInboundHandlerAdapter()).connect(server.localAddress()).sync().channel();
        client.writeAndFlush(Unpooled.wrappedBuffer(new byte[total]));
        int max = largest.get(30, TimeUnit.SECONDS);
        assertTrue(max <= TcpTransport.ENGINE_MAX_READ, "an engine's channel reads at most " + TcpTransport.ENGINE_MAX_READ + ": largest " + max);
        client.close().sync();
        server.close().sync();
    }

    @Test
    void readsABulkFlowInPiecesLargerThanNettysDefault() throws Exception {
        int total = 16 << 20;
        CompletableFuture<Channel> server = new CompletableFuture<>();
        CompletableFuture<Integer> largest = largestReadOf(total, ChannelOptions.builder().build(), server);
        Channel client = connect(server.get(), ChannelOptions.builder().build());
        client.writeAndFlush(Unpooled.wrappedBuffer(new byte[total]));
        int max = largest.get(30, TimeUnit.SECONDS);
        assertTrue(max > 64 << 10 && max <= TcpTransport.MAX_READ,
                "a 16 MiB flow on loopback is read in pieces above Netty's 64 KiB default, up to " + TcpTransport.MAX_READ + ": largest " + max);
        client.close().sync();
    }

    @Test
    void aReceiveAllocatorGivenAsAnOptionReplacesTheTransportsDefault() throws Exception {
        int total = 4 << 20;
        CompletableFuture<Channel> server = new CompletableFuture<>();
        CompletableFuture<Integer> largest = largestReadOf(total, ChannelOptions.builder()
                .set(io.netty.channel.ChannelOption.RCVBUF_ALLOCATOR, new io.netty.channel.FixedRecvByteBufAllocator(4096)).build(), server);
        Channel client = connect(server.get(), ChannelOptions.builder().build());
        client.writeAndFlush(Unpooled.wrappedBuffer(new byte[total]));
        assertTrue(largest.get(30, TimeUnit.SECONDS) <= 4096, "reads of at most the 4096 bytes the option asked for");
        client.close().sync();
    }

    @Test
    void appliesCongestionControlPerConnectionOnClientAndServer() throws Exception {
        Assumptions.assumeTrue(epoll(), "per-connection congestion control needs native epoll (Linux)");
        List<String> available = CongestionControlAlgorithms.available();
        Assumptions.assumeTrue(available.contains("reno") && available.contains("cubic"), "kernel offers reno and cubic: " + available);
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        Channel server = listen(ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, "cubic").build(), accepted);
        Channel client;
        try {
            client = connect(server, ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, "reno").build());
        } catch (AssertionError e) {
            Assumptions.assumeTrue(!String.valueOf(e.getMessage()).contains("Operation not permitted"),
                    "this process may not choose reno/cubic (not root and not in tcp_allowed_congestion_control)");
            throw e;
        }
        try {
            assertEquals("reno", congestionControlOf(client), "the client socket runs the algorithm it asked for");
            assertEquals("cubic", congestionControlOf(accepted.get(10, TimeUnit.SECONDS)), "accepted sockets inherit the listener's algorithm");
        } finally {
            client.close().sync();
            server.close().sync();
        }
    }

    @Test
    void unknownCongestionControlListsTheAvailableOnes() {
        Assumptions.assumeTrue(epoll(), "per-connection congestion control needs native epoll (Linux)");
        UnsupportedOptionException e = assertThrows(UnsupportedOptionException.class, () -> ferry.connect("tcp://127.0.0.1:9",
                new ChannelInboundHandlerAdapter(), ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, "warp9").build()));
        assertTrue(e.getMessage().contains("'warp9' is not available"), e.getMessage());
        for (String algorithm : CongestionControlAlgorithms.available()) {
            assertTrue(e.getMessage().contains(algorithm), "lists " + algorithm + ": " + e.getMessage());
        }
    }

    @Test
    void appliesPacketSizeAndPacingRateToTheSocket() throws Exception {
        Assumptions.assumeTrue(epoll(), "TCP_MAXSEG and SO_MAX_PACING_RATE need native epoll (Linux)");
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        Channel server = listen(ChannelOptions.empty(), accepted);
        Channel client = connect(server, ChannelOptions.builder()
                .set(FerryChannelOption.PACKET_SIZE, 1200)
                .set(FerryChannelOption.PACING_RATE, 12_500_000L).build());
        try {
            int mss = client.config().getOption(TcpSocketOptions.TCP_MAXSEG);
            assertTrue(mss > 0 && mss <= 1200, "MSS is capped at the packet size: " + mss);
            long rate = TcpSocketOptions.pacingRate(client.config().getOption(TcpSocketOptions.SO_MAX_PACING_RATE));
            assertEquals(12_500_000L, rate);
        } finally {
            client.close().sync();
            server.close().sync();
        }
    }

    @Test
    void epollStatisticsCarryTcpInfo() throws Exception {
        Assumptions.assumeTrue(epoll(), "TCP_INFO needs native epoll (Linux)");
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        Channel server = listen(ChannelOptions.empty(), accepted);
        Channel client = connect(server, ChannelOptions.empty());
        try {
            client.writeAndFlush(Unpooled.wrappedBuffer(new byte[1 << 20])).sync();
            TransportStatistics stats = FerryChannels.statistics(client);
            assertEquals("tcp", stats.transport());
            assertEquals("epoll", stats.implementation());
            assertEquals(1 << 20, stats.bytesSent());
            assertTrue(stats.smoothedRtt().isPresent(), "RTT from TCP_INFO: " + stats);
            assertTrue(stats.congestionWindowBytes().orElseThrow() > 0, "cwnd from TCP_INFO: " + stats);
            assertTrue(stats.retransmissions().isPresent() && stats.packetsLost().isPresent(), stats.toString());
            assertTrue(stats.queuingDelay().isEmpty(), "TCP does not know its queuing delay");
        } finally {
            client.close().sync();
            server.close().sync();
        }
    }

    @Test
    void nioRejectsKernelOnlyOptionsWithTheReason() {
        try (Transports nio = Transports.of(List.of(new TcpTransportProvider(TcpIo.nio())))) {
            UnsupportedOptionException e = assertThrows(UnsupportedOptionException.class, () -> nio.connect("tcp://127.0.0.1:9",
                    new ChannelInboundHandlerAdapter(), ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, "cubic").build()));
            assertTrue(e.getMessage().contains("needs Netty's native epoll transport"), e.getMessage());
        }
    }

    @Test
    void nioStatisticsSayNioAndLeaveKernelValuesUnknown() throws Exception {
        try (Transports nio = Transports.of(List.of(new TcpTransportProvider(TcpIo.nio())))) {
            ChannelFuture server = nio.listen("tcp://127.0.0.1:0", new ChannelInboundHandlerAdapter());
            server.sync();
            int port = ((InetSocketAddress) server.channel().localAddress()).getPort();
            Channel client = nio.connect("tcp://127.0.0.1:" + port, new ChannelInboundHandlerAdapter()).sync().channel();
            TransportStatistics stats = FerryChannels.statistics(client);
            assertEquals("nio", stats.implementation());
            assertTrue(stats.smoothedRtt().isEmpty());
            client.close().sync();
        }
    }

    @Test
    void unresolvableHostFailsTheConnectFuture() throws Exception {
        ChannelFuture f = ferry.connect("tcp://no-such-host.invalid:80", new ChannelInboundHandlerAdapter());
        assertTrue(f.await(10, TimeUnit.SECONDS));
        assertFalse(f.isSuccess());
        assertInstanceOf(UnknownHostException.class, f.cause());
        assertTrue(f.cause().getMessage().contains("no-such-host.invalid"), f.cause().getMessage());
    }

    @Test
    void closingTheTransportClosesListenersAndStopsItsThreads() throws Exception {
        Transports own = Transports.create();
        TcpTransport tcp = (TcpTransport) own.transport("tcp");
        ChannelFuture server = own.listen("tcp://127.0.0.1:0", new ChannelInboundHandlerAdapter());
        server.sync();
        own.close();
        assertFalse(server.channel().isOpen(), "closing Transports closes its listeners");
        assertTrue(tcp.terminated(), "the transport's event loops have stopped");
    }
}
