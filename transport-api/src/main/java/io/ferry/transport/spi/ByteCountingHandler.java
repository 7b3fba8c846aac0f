package io.ferry.transport.spi;

import io.netty.util.AttributeKey;
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

    private static final AttributeKey<ByteCountingHandler> KEY = AttributeKey.valueOf(ByteCountingHandler.class, "counter");

    /**
     * The counter added to a channel's pipeline, or {@code null} if it has none. It stays readable after
     * the channel closed and its pipeline was emptied, so statistics read after a close keep their counts.
     */
    public static ByteCountingHandler of(io.netty.channel.Channel channel) {
        return channel.attr(KEY).get();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        ctx.channel().attr(KEY).setIfAbsent(this);
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
