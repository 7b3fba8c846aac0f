package io.ferry.transport.spi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;

/**
 * Counts application bytes read from and written to a channel, for transports whose underlying
 * protocol does not count them itself. Transports put one instance at the head of each connection's
 * pipeline. Counters are written on the channel's event loop and may be read from any thread.
 */
public final class ByteCountingHandler extends ChannelDuplexHandler {

    /** The name under which transports add this handler. */
    public static final String NAME = "ferry-byte-counter";

    private volatile long bytesReceived;
    private volatile long bytesSent;

    /** The counter of a channel's pipeline, or {@code null} if it has none. */
    public static ByteCountingHandler of(io.netty.channel.Channel channel) {
        return (ByteCountingHandler) channel.pipeline().get(NAME);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        long n = sizeOf(msg);
        if (n > 0) {
            bytesReceived = bytesReceived + n; // single writer: the event loop
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        long n = sizeOf(msg);
        if (n > 0) {
            bytesSent = bytesSent + n;
        }
        ctx.write(msg, promise);
    }

    /** Bytes handed to the transport for sending. */
    public long bytesSent() {
        return bytesSent;
    }

    /** Bytes the transport delivered. */
    public long bytesReceived() {
        return bytesReceived;
    }

    private static long sizeOf(Object msg) {
        if (msg instanceof ByteBuf) {
            return ((ByteBuf) msg).readableBytes();
        }
        if (msg instanceof ByteBufHolder) {
            return ((ByteBufHolder) msg).content().readableBytes();
        }
        if (msg instanceof FileRegion) {
            return ((FileRegion) msg).count();
        }
        return 0;
    }
}
