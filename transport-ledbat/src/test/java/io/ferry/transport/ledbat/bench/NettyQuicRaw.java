package io.ferry.transport.ledbat.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.handler.codec.quic.EpollQuicUtils;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicChannelOption;
import io.netty.handler.codec.quic.QuicClientCodecBuilder;
import io.netty.handler.codec.quic.QuicServerCodecBuilder;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.netty.util.ReferenceCountUtil;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Netty's QUIC codec on its own, as a user of {@code netty-codec-quic} writes it: one bidirectional stream,
 * the sender writing 1 MiB buffers while the stream is writable (the codec queues what exceeds the
 * stream's capacity), the receiver counting and releasing. The same codec settings as Ferry's quic://
 * (cubic, 8 MiB stream window, 1472-byte payloads, GSO and GRO on epoll). The row {@code quic-netty} next
 * to {@code quic} shows what Ferry's relay over the codec costs; both are the yardstick for uTP.
 */
final class NettyQuicRaw {

    static final String NAME = "quic-netty";

    record Result(long bytes, double seconds, double cpuSeconds) {
    }

    static boolean isAvailable() {
        try {
            return io.netty.handler.codec.quic.Quic.isAvailable() && io.netty.channel.epoll.Epoll.isAvailable();
        } catch (LinkageError e) {
            return false;
        }
    }

    static Result run(long size) throws Exception {
        X509Bundle cert = new CertificateBuilder().subject("CN=localhost").setIsCertificateAuthority(true).ecp256().buildSelfSigned();
        EventLoopGroup server = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        EventLoopGroup client = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try {
            CompletableFuture<Long> received = new CompletableFuture<>();
            ChannelHandler serverCodec = configure(new QuicServerCodecBuilder(), 1)
                    .sslContext(QuicSslContextBuilder.forServer(cert.toKeyManagerFactory(), null).applicationProtocols("bench").build())
                    .tokenHandler(null)
                    .option(QuicChannelOption.SEGMENTED_DATAGRAM_PACKET_ALLOCATOR, EpollQuicUtils.newSegmentedAllocator(16))
                    .handler(new ChannelInboundHandlerAdapter())
                    .streamHandler(new ChannelInboundHandlerAdapter() {
                        long count;

                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            count += ((ByteBuf) msg).readableBytes();
                            ReferenceCountUtil.release(msg);
                            if (count >= size) {
                                received.complete(count);
                            }
                        }
                    })
                    .build();
            Channel serverSocket = socket(server, serverCodec).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            ChannelHandler clientCodec = configure(new QuicClientCodecBuilder(), 0)
                    .sslContext(QuicSslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE)
                            .applicationProtocols("bench").build())
                    .build();
            Channel clientSocket = socket(client, clientCodec).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            QuicChannel quic = QuicChannel.newBootstrap(clientSocket)
                    .option(QuicChannelOption.SEGMENTED_DATAGRAM_PACKET_ALLOCATOR, EpollQuicUtils.newSegmentedAllocator(16))
                    .handler(new ChannelInboundHandlerAdapter())
                    .streamHandler(new ChannelInboundHandlerAdapter())
                    .remoteAddress(serverSocket.localAddress()).connect().get(10, TimeUnit.SECONDS);
            ByteBuf block = PooledByteBufAllocator.DEFAULT.directBuffer(1 << 20).writerIndex(1 << 20);
            long cpuBefore = cpuNanos();
            long start = System.nanoTime();
            QuicStreamChannel stream = quic.createStream(QuicStreamType.BIDIRECTIONAL, new ChannelInboundHandlerAdapter() {
                long queued;

                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    pump(ctx);
                }

                @Override
                public void handlerAdded(ChannelHandlerContext ctx) {
                    if (ctx.channel().isActive()) {
                        pump(ctx);
                    }
                }

                @Override
                public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                    pump(ctx);
                }

                private void pump(ChannelHandlerContext ctx) {
                    while (queued < size && ctx.channel().isWritable()) {
                        int n = (int) Math.min(block.capacity(), size - queued);
                        queued += n;
                        ctx.write(block.retainedSlice(0, n));
                    }
                    ctx.flush();
                }
            }).get(10, TimeUnit.SECONDS);
            long bytes = received.get(10, TimeUnit.MINUTES);
            double seconds = (System.nanoTime() - start) / 1e9;
            double cpu = (cpuNanos() - cpuBefore) / 1e9;
            stream.close();
            quic.close().sync();
            block.release();
            clientSocket.close().sync();
            serverSocket.close().sync();
            return new Result(bytes, seconds, cpu);
        } finally {
            client.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            server.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private static <B extends io.netty.handler.codec.quic.QuicCodecBuilder<B>> B configure(B b, int peerBidiStreams) {
        return b.congestionControlAlgorithm(io.netty.handler.codec.quic.QuicCongestionControlAlgorithm.CUBIC)
                .maxIdleTimeout(30, TimeUnit.SECONDS).maxSendUdpPayloadSize(1472).maxRecvUdpPayloadSize(65_527)
                .initialMaxData(16 << 20).initialMaxStreamDataBidirectionalLocal(8 << 20)
                .initialMaxStreamDataBidirectionalRemote(8 << 20).initialMaxStreamsBidirectional(peerBidiStreams);
    }

    private static Bootstrap socket(EventLoopGroup group, ChannelHandler codec) {
        return new Bootstrap().group(group).channel(EpollDatagramChannel.class).handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(codec);
                    }
                })
                .option(ChannelOption.SO_RCVBUF, 4 << 20).option(ChannelOption.SO_SNDBUF, 4 << 20)
                .option(EpollChannelOption.UDP_GRO, true)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(65_536)
                        .maxMessagesPerRead(io.ferry.transport.udp.UdpIo.READS_PER_LOOP)); // as quic:// reads
    }

    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private NettyQuicRaw() {
    }
}
