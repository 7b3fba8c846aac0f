package io.ferry.cli.perf;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The receiving end of a test flow: counts what arrives in {@link #BIN_MILLIS} bins from the moment the
 * connection became active, and drops it. A sender that aborts at the end is no error here.
 */
final class FlowSink extends ChannelInboundHandlerAdapter {

    static final int BIN_MILLIS = 100;
    private static final long BIN_NANOS = BIN_MILLIS * 1_000_000L;

    private final AtomicLongArray bins;
    private final java.nio.channels.FileChannel landing;
    private long landed;
    private volatile long startNanos = -1;
    private volatile String failure;

    /** Counts for at most {@code seconds} (and a little more, for the tail that is still arriving), and drops it. */
    FlowSink(long seconds) {
        this(seconds, null);
    }

    /**
     * Counts, and writes what arrives into {@code landing} ({@code --file}: the disk is part of the test), on the
     * event loop, as a receiver that stores each buffer as it comes; null drops it. The caller closes the file.
     */
    FlowSink(long seconds, java.nio.channels.FileChannel landing) {
        this.bins = new AtomicLongArray((int) Math.min(Integer.MAX_VALUE, seconds * 1000 / BIN_MILLIS + 50));
        this.landing = landing;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            started();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        started();
        ctx.fireChannelActive();
    }

    private void started() {
        if (startNanos < 0) {
            startNanos = System.nanoTime();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof ByteBuf buf && startNanos >= 0) {
                if (landing != null && failure == null) {
                    land(ctx, buf);
                }
                long bin = (System.nanoTime() - startNanos) / BIN_NANOS;
                if (bin < bins.length()) {
                    bins.addAndGet((int) bin, buf.readableBytes());
                }
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void land(ChannelHandlerContext ctx, ByteBuf buf) {
        try {
            for (int done = 0; done < buf.readableBytes(); ) {
                done += buf.getBytes(buf.readerIndex() + done, landing, landed + done, buf.readableBytes() - done);
            }
            landed += buf.readableBytes();
        } catch (java.io.IOException e) {
            failure = "writing what arrived failed: " + e.getMessage();
            ctx.close();
        }
    }

    /** Why storing what arrived failed ({@code --file}), or null. */
    String failure() {
        return failure;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close(); // a sender's abort at the end of its time, or a peer gone: the counts say what arrived
    }

    /** When counting began ({@link System#nanoTime}), or -1 before the connection was active. */
    long startNanos() {
        return startNanos;
    }

    /** Bytes per bin, the first {@code count} bins. */
    long[] bins(int count) {
        long[] out = new long[Math.min(count, bins.length())];
        for (int i = 0; i < out.length; i++) {
            out[i] = bins.get(i);
        }
        return out;
    }
}
