package io.ferry.transport.conformance;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes a reproducible stream of {@code total} bytes as soon as the channel is active, honouring
 * writability (it only writes while {@code isWritable()}), and records what the transport accepted.
 */
final class StreamSource extends ChannelInboundHandlerAdapter {
    private final long total;
    private final int chunk;
    private final PatternStream pattern;
    private final CompletableFuture<byte[]> sentDigest = new CompletableFuture<>();
    private final AtomicLong flushedToTransport = new AtomicLong();
    private volatile long queued;
    private volatile boolean everUnwritable;
    private volatile long maxPendingOutbound;
    private final Object progress = new Object();
    private long lastProgressNanos = System.nanoTime();

    StreamSource(long total, int chunk, long seed) {
        this.total = total;
        this.chunk = chunk;
        this.pattern = new PatternStream(seed);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        writeMore(ctx);
        ctx.fireChannelActive();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            ctx.channel().eventLoop().execute(() -> writeMore(ctx));
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (!ctx.channel().isWritable()) {
            everUnwritable = true;
        }
        writeMore(ctx);
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (queued < total) {
            sentDigest.completeExceptionally(new IllegalStateException("channel closed after " + queued + " of " + total + " bytes were queued"));
        }
        ctx.fireChannelInactive();
    }

    private void writeMore(ChannelHandlerContext ctx) {
        long q = queued;
        while (q < total && ctx.channel().isWritable()) {
            int n = (int) Math.min(chunk, total - q);
            ByteBuf buf = ctx.alloc().buffer(n);
            pattern.fill(buf, n);
            q += n;
            queued = q;
            ctx.write(buf).addListener(f -> {
                if (f.isSuccess()) {
                    flushedToTransport.addAndGet(n);
                    synchronized (progress) {
                        lastProgressNanos = System.nanoTime();
                        progress.notifyAll();
                    }
                }
            });
            long pending = ctx.channel().unsafe().outboundBuffer() == null ? 0
                    : ctx.channel().unsafe().outboundBuffer().totalPendingWriteBytes();
            if (pending > maxPendingOutbound) {
                maxPendingOutbound = pending;
            }
        }
        if (!ctx.channel().isWritable()) {
            everUnwritable = true;
        }
        ctx.flush();
        if (q == total && !sentDigest.isDone()) {
            sentDigest.complete(pattern.digest());
        }
    }

    /** Completes with the SHA-256 of the whole stream once every byte is queued. */
    CompletableFuture<byte[]> sentDigest() {
        return sentDigest;
    }

    /** Bytes whose write completed: handed over to the transport below Netty's outbound buffer. */
    long flushedToTransport() {
        return flushedToTransport.get();
    }

    /**
     * Waits until the transport has taken nothing for {@code quietNanos} in a row, woken by every write
     * it completes; returns false if it was still taking data when {@code timeoutNanos} ran out.
     */
    boolean awaitNoProgressFor(long quietNanos, long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        synchronized (progress) {
            while (true) {
                long now = System.nanoTime();
                long quietAt = lastProgressNanos + quietNanos;
                if (now >= quietAt) {
                    return true;
                }
                if (now >= deadline) {
                    return false;
                }
                long waitNanos = Math.min(quietAt, deadline) - now;
                progress.wait(Math.max(1, waitNanos / 1_000_000), 0);
            }
        }
    }

    boolean everUnwritable() {
        return everUnwritable;
    }

    long maxPendingOutbound() {
        return maxPendingOutbound;
    }
}
