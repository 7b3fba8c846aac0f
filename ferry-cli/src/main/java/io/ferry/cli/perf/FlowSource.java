package io.ferry.cli.perf;

import io.ferry.transport.FerryChannels;
import io.ferry.transport.TransportStatistics;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The sending end of a test flow: writes as fast as the channel takes it (driven by its writability,
 * as an application that respects backpressure does) for a time or a number of bytes, whichever ends
 * first, then stops writing and records the transport's statistics. The bytes are random, so that
 * nothing on the path compresses them.
 */
final class FlowSource extends ChannelInboundHandlerAdapter {

    static final int CHUNK = 64 * 1024;

    private final long durationNanos;
    private final long maxBytes;
    private final CompletableFuture<TransportStatistics> stopped = new CompletableFuture<>();
    private final FlowPayload payload;
    private Channel channel;
    private long written;
    private boolean running;
    private volatile String failure;

    FlowSource(long durationNanos, long maxBytes, FlowPayload payload) {
        this.durationNanos = durationNanos;
        this.maxBytes = maxBytes;
        this.payload = payload;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            start(ctx.channel());
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        start(ctx.channel());
        ctx.fireChannelActive();
    }

    private void start(Channel ch) {
        if (channel != null) {
            return;
        }
        channel = ch;
        running = true;
        ch.eventLoop().schedule(this::stop, durationNanos, TimeUnit.NANOSECONDS);
        write();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        write();
        ctx.fireChannelWritabilityChanged();
    }

    private void write() {
        boolean any = false;
        while (running && channel.isWritable() && written < maxBytes) {
            ByteBuf chunk;
            try {
                chunk = payload.next(channel.alloc(), (int) Math.min(CHUNK, maxBytes - written));
            } catch (java.io.IOException e) {
                failure = "reading the payload failed: " + e.getMessage();
                stop();
                break;
            }
            written += chunk.readableBytes();
            channel.write(chunk, channel.voidPromise());
            any = true;
        }
        if (any) {
            channel.flush();
        }
        if (running && written >= maxBytes) {
            stop();
        }
    }

    private void stop() {
        if (stopped.isDone()) {
            return;
        }
        running = false;
        TransportStatistics stats = null;
        if (channel != null) {
            try {
                stats = FerryChannels.statistics(channel);
            } catch (RuntimeException notAvailable) {
                // a transport without statistics for this channel: the report leaves them out
            }
        }
        payload.close();
        stopped.complete(stats);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        stop();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        stop();
        ctx.close();
    }

    /** Completes when writing stopped (time, bytes or the connection's end), with the transport's statistics then, or null. */
    CompletableFuture<TransportStatistics> stopped() {
        return stopped;
    }

    /** Why writing stopped early (the payload could not be read), or null. */
    String failure() {
        return failure;
    }

    /** Bytes handed to the channel (event loop, or after {@link #stopped}). */
    long written() {
        return written;
    }
}
