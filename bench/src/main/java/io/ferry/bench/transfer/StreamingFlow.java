package io.ferry.bench.transfer;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.TransportStatistics;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.util.ReferenceCountUtil;

import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bulk flow that sends as fast as the transport lets it until stopped, from a client peer to a
 * server peer, counting the bytes the receiver got (for share-over-time measurements).
 */
public final class StreamingFlow implements MeasuredFlow {

    private static final ByteBuf BLOCK = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(new byte[64 * 1024]));

    private final String label;
    private final AtomicLong received;
    private final Channel listener;
    private final Channel client;
    private final java.util.Queue<Channel> accepted;

    private StreamingFlow(String label, Channel listener, Channel client, AtomicLong received, java.util.Queue<Channel> accepted) {
        this.label = label;
        this.listener = listener;
        this.client = client;
        this.received = received;
        this.accepted = accepted;
    }

    /** Starts a flow over {@code scheme} with {@code options} on both sides and returns once it is connected. */
    public static StreamingFlow start(String label, String scheme, ChannelOptions options, Peer client, Peer server) throws Exception {
        AtomicLong counter = new AtomicLong();
        java.util.Queue<Channel> accepted = new java.util.concurrent.ConcurrentLinkedQueue<>();
        Channel listener = server.call(() -> server.transports().listen(scheme + "://" + server.host().address() + ":0",
                new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        accepted.add(ch);
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                counter.addAndGet(((ByteBuf) msg).readableBytes());
                                ReferenceCountUtil.release(msg);
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                ctx.close();
                            }
                        });
                    }
                }, options).sync().channel());
        try {
            int port = ((InetSocketAddress) listener.localAddress()).getPort();
            Channel ch = client.call(() -> client.transports().connect(scheme + "://" + server.host().address() + ":" + port,
                    new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelActive(ChannelHandlerContext ctx) {
                            pump(ctx);
                        }

                        @Override
                        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                            pump(ctx);
                        }

                        private void pump(ChannelHandlerContext ctx) {
                            while (ctx.channel().isActive() && ctx.channel().isWritable()) {
                                ctx.write(BLOCK.duplicate());
                            }
                            ctx.flush();
                        }

                        @Override
                        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                            ctx.close();
                        }
                    }, options).sync().channel());
            return new StreamingFlow(label, listener, ch, counter, accepted);
        } catch (Exception e) {
            listener.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
            throw e;
        }
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public long receivedBytes() {
        return received.get();
    }

    /** The sender's statistics, if the connection is still open. */
    public Optional<TransportStatistics> senderStatistics() {
        return client.isActive() ? Optional.of(FerryChannels.statistics(client)) : Optional.empty();
    }

    /**
     * Stops the flow at once: both ends are aborted (what the sender still had queued is dropped, as a
     * measured flow ends at a point in time, not when its queue drains), then the listener closes.
     */
    @Override
    public void close() {
        FerryChannels.abort(client).awaitUninterruptibly(5, TimeUnit.SECONDS);
        for (Channel ch : accepted) {
            FerryChannels.abort(ch).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        listener.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
