package io.ferry.transport.hosted;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.FileRegion;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * A hosted connection's writes on their way into the carried connection. A write's promise is the host's
 * outbound-buffer entry, which stays (and counts against the host's writability) until the carried
 * connection has taken the message; the verdicts arrive in order from the carried connection's loop and are
 * applied on the host's, as a kernel socket's write completes when the kernel has the bytes.
 */
final class HandedWrites {

    private final SocketChannel carried;
    private final Consumer<Runnable> onHostLoop;
    private final Runnable afterVerdicts;
    /** Messages handed and not yet judged, oldest first; the host's loop only. */
    private final ArrayDeque<Handed> handed = new ArrayDeque<>();
    private final Queue<Future<?>> verdicts = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean posted = new AtomicBoolean();
    private final ChannelFutureListener onVerdict;
    /** The host's outbound buffer, kept for the verdicts that arrive while the host closes. */
    private ChannelOutboundBuffer buffer;

    /** {@code afterVerdicts} runs on the host's loop after each batch of verdicts. */
    HandedWrites(SocketChannel carried, Consumer<Runnable> onHostLoop, Runnable afterVerdicts) {
        this.carried = carried;
        this.onHostLoop = onHostLoop;
        this.afterVerdicts = afterVerdicts;
        this.onVerdict = f -> {
            verdicts.add(f);
            if (posted.compareAndSet(false, true)) {
                onHostLoop.accept(this::take);
            }
        };
    }

    /**
     * Hands the flushed messages not handed yet to the carried connection while it is writable.
     *
     * @return true if it stopped because the carried connection is not writable (its writability event resumes)
     */
    boolean hand(ChannelOutboundBuffer in) throws Exception {
        buffer = in;
        int[] skip = {handed.size()};
        boolean[] any = {false};
        boolean[] blocked = {false};
        in.forEachFlushedMessage(msg -> {
            if (skip[0] > 0) {
                skip[0]--;
                return true;
            }
            if (!carried.isWritable()) {
                blocked[0] = true;
                return false;
            }
            long size = msg instanceof ByteBuf ? ((ByteBuf) msg).readableBytes()
                    : ((FileRegion) msg).count() - ((FileRegion) msg).transferred();
            handed.add(new Handed(msg, size));
            carried.write(ReferenceCountUtil.retain(msg)).addListener(onVerdict);
            any[0] = true;
            return true;
        });
        if (any[0]) {
            carried.flush();
        }
        return blocked[0];
    }

    /** Whether every handed message has its verdict. */
    boolean isEmpty() {
        return handed.isEmpty();
    }

    /** The host closed: its buffer failed its entries already. */
    void clear() {
        handed.clear();
    }

    /** Completes the entries of the messages the carried connection judged, in order (the host's loop). */
    private void take() {
        posted.set(false);
        ChannelOutboundBuffer in = buffer;
        for (Future<?> f; (f = verdicts.poll()) != null; ) {
            Handed h = handed.poll();
            if (in == null || h == null) {
                continue; // closed or shut down: the buffer failed its entries already
            }
            while (in.current() != null && in.current() != h.msg()) {
                in.remove(); // an entry cancelled before its flush, which was never handed
            }
            if (in.current() == null) {
                continue;
            }
            if (f.isSuccess()) {
                in.progress(h.size());
                in.remove();
            } else {
                in.remove(f.cause());
            }
        }
        afterVerdicts.run();
    }

    /** A message handed to the carried connection, and its size then (the carried write consumes it). */
    private record Handed(Object msg, long size) {
    }
}
