package io.ferry.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.VoidChannelPromise;
import io.netty.util.ReferenceCountUtil;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedChannelException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes to a channel from an application thread with backpressure, on every transport: {@link #write}
 * returns at once while there is room and otherwise flushes and blocks until the channel drained below
 * its write-buffer high water mark (or closed). A producer never queues much more than that water mark
 * and never waits on data it has not flushed.
 *
 * <pre>{@code
 * try (BlockingChannelWriter out = BlockingChannelWriter.of(channel)) {
 *     for (Record r : records) {
 *         out.write(encode(r));          // blocks only while the peer or the network is slower
 *     }
 * }                                      // close() flushes and waits until everything was written
 * }</pre>
 *
 * <p>Why not plain {@code channel.write} from the application thread: each such call is a task handed to
 * the event loop, and a flush from outside wakes the loop for every message. This writer queues messages
 * itself and hands them to the loop in batches, one task and one flush per batch, however many
 * {@link #flush()}es the producer asks for while the loop is busy; the loop then writes them through the
 * pipeline exactly as {@code channel.write} would (encoders run on the loop, in order). Netty has no
 * such helper: {@code writeAndFlush(msg).sync()} waits for every message, and {@code ChunkedWriteHandler}
 * pulls on the event loop instead.
 *
 * <p>A failed write (the connection broke) makes the next call throw; a message passed to a closed
 * writer or channel is released. One thread at a time may use a writer.
 */
public final class BlockingChannelWriter implements AutoCloseable {

    private static final String HANDLER_NAME = "ferry-blocking-writer";
    private static final long RECHECK_MILLIS = 100;

    private final Channel channel;
    private final String handlerName = HANDLER_NAME + "#" + System.identityHashCode(this);
    private final MessageSizeEstimator.Handle sizes;
    private final VoidChannelPromise quiet;
    private final Queue<Object> queue = new ConcurrentLinkedQueue<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drain = this::drain;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile Throwable failure;
    private volatile ChannelFuture last;
    private boolean closed;

    private BlockingChannelWriter(Channel channel) {
        this.channel = channel;
        this.sizes = channel.config().getMessageSizeEstimator().newHandle();
        this.quiet = new VoidChannelPromise(channel, false);
    }

    /**
     * A writer for {@code channel}; adds a small handler at the head of its pipeline that signals
     * writability (first, so that no handler of the application can swallow the event), removed by {@link #close()}.
     */
    public static BlockingChannelWriter of(Channel channel) {
        BlockingChannelWriter writer = new BlockingChannelWriter(channel);
        channel.pipeline().addFirst(writer.handlerName, writer.new Signal());
        channel.closeFuture().addListener(f -> writer.signal());
        return writer;
    }

    /**
     * Queues {@code msg} (a {@code ByteBuf} or whatever the pipeline encodes) without flushing it; blocks,
     * after flushing, while more than the channel's high water mark is queued or the channel is not writable.
     */
    public void write(Object msg) throws IOException {
        try {
            check();
        } catch (IOException e) {
            ReferenceCountUtil.release(msg);
            throw e;
        }
        queue.add(msg);
        long queued = queuedBytes.addAndGet(Math.max(0, sizes.size(msg)));
        if (queued >= channel.config().getWriteBufferHighWaterMark() || !channel.isWritable()) {
            scheduleDrain();
            awaitRoom();
        }
    }

    /** {@link #write} and then {@link #flush}: for a message that must leave now (a request, the last record). */
    public void writeAndFlush(Object msg) throws IOException {
        write(msg);
        flush();
    }

    /** Sends everything written so far; does not wait for it. */
    public void flush() throws IOException {
        check();
        scheduleDrain();
    }

    /**
     * Flushes and waits until every message written through this writer has been written to the transport
     * (or failed), then throws the failure if there was one. Does not close the channel.
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            scheduleDrain();
            lock.lock();
            try {
                while (queuedBytes.get() > 0 || !queue.isEmpty()) {
                    if (!channel.isActive() || failure != null) {
                        break;
                    }
                    changed.await(RECHECK_MILLIS, TimeUnit.MILLISECONDS);
                }
            } finally {
                lock.unlock();
            }
            ChannelFuture tail = last;
            if (tail != null) {
                tail.await();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the last write");
        } finally {
            if (channel.isRegistered()) {
                channel.eventLoop().execute(this::removeHandler);
            }
            releaseQueued();
        }
        Throwable cause = failure;
        if (cause != null) {
            throw new IOException("a write failed: " + cause.getMessage(), cause);
        }
    }

    private void check() throws IOException {
        if (closed) {
            throw new IOException("the writer is closed");
        }
        Throwable cause = failure;
        if (cause != null) {
            throw new IOException("a write failed: " + cause.getMessage(), cause);
        }
        if (!channel.isActive()) {
            throw new ClosedChannelException();
        }
    }

    private void scheduleDrain() {
        if (drainScheduled.compareAndSet(false, true)) {
            channel.eventLoop().execute(drain);
        }
    }

    /** On the event loop: writes everything queued through the pipeline, then flushes once. */
    private void drain() {
        drainScheduled.set(false);
        Object msg = queue.poll();
        if (msg == null) {
            return;
        }
        long drained = 0;
        while (msg != null) {
            Object next = queue.poll();
            drained += Math.max(0, sizes.size(msg));
            if (next == null) {
                ChannelFuture future = channel.write(msg);
                future.addListener(this::written);
                last = future;
            } else {
                channel.write(msg, quiet);
            }
            msg = next;
        }
        // one update of the counter the writing thread also changes, not one per message (small messages
        // from an application thread spent their time in that contended counter)
        queuedBytes.addAndGet(-drained);
        channel.flush();
        signal();
    }

    private void awaitRoom() throws IOException {
        lock.lock();
        try {
            while ((!channel.isWritable() || queuedBytes.get() >= channel.config().getWriteBufferHighWaterMark())
                    && channel.isActive() && failure == null) {
                changed.await(RECHECK_MILLIS, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the channel to become writable");
        } finally {
            lock.unlock();
        }
        check();
    }

    private void written(io.netty.util.concurrent.Future<? super Void> f) {
        if (!f.isSuccess() && failure == null) {
            failure = f.cause();
            signal();
        }
    }

    private void signal() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void releaseQueued() {
        for (Object msg; (msg = queue.poll()) != null; ) {
            ReferenceCountUtil.release(msg);
        }
    }

    private void removeHandler() {
        if (channel.pipeline().get(handlerName) != null) {
            channel.pipeline().remove(handlerName);
        }
    }

    /** Wakes the writer when the channel's writability changes. */
    private final class Signal extends ChannelInboundHandlerAdapter {
        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable()) {
                signal();
            }
            ctx.fireChannelWritabilityChanged();
        }
    }
}
