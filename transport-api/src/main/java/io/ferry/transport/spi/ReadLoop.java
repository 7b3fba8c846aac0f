package io.ferry.transport.spi;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * Netty's read-loop contract for a channel whose bytes arrive as ready buffers rather than from a socket it
 * reads (uTP's reassembled payloads, a striped channel's reordered pieces). A loop may start while
 * auto-read is on or a {@code read()} is pending; each message is at most the channel's
 * {@link RecvByteBufAllocator} guess (a slice, not a copy); the pending read is cleared as each message goes
 * out; the loop ends with one {@code channelReadComplete} when the allocator's handle says stop or the bytes
 * run out. With auto-read off a {@code read()} therefore brings one loop, as it does over epoll and NIO —
 * what Netty's socket test suite ({@code SocketAutoReadTest}, {@code SocketReadPendingTest}) checks.
 *
 * <p>Event-loop only, like the channel that owns it.
 */
public final class ReadLoop {

    private final Channel channel;
    /** The handle of the loop in progress, or null between loops. */
    private RecvByteBufAllocator.Handle loop;
    private boolean readPending;

    public ReadLoop(Channel channel) {
        this.channel = channel;
    }

    /** {@code read()} was called ({@code doBeginRead}): one loop may run. */
    public void requested() {
        readPending = true;
    }

    /** Auto-read was switched off: a {@code read()} asked for before it no longer stands, as in NIO. */
    public void autoReadCleared() {
        readPending = false;
    }

    /** Whether bytes may go to the pipeline now: a loop is in progress, or one may start. */
    public boolean reading() {
        return loop != null || readPending || channel.config().isAutoRead();
    }

    /** Whether a loop is in progress (its read-complete not yet fired). */
    public boolean inProgress() {
        return loop != null;
    }

    /**
     * The next message of the loop (starting one if none is in progress): the first bytes of {@code data},
     * at most the allocator's guess — {@code data} itself when it all fits, which the caller then removes from
     * its queue before {@link #fire firing} it, else a retained slice, {@code data}'s reader index moved past it.
     */
    public ByteBuf next(ByteBuf data) {
        if (loop == null) {
            loop = channel.unsafe().recvBufAllocHandle();
            loop.reset(channel.config());
        }
        int attempt = Math.max(1, loop.guess());
        int available = data.readableBytes();
        int n = Math.min(attempt, available);
        loop.attemptedBytesRead(attempt);
        loop.lastBytesRead(n);
        loop.incMessagesRead(1);
        return n == available ? data : data.readRetainedSlice(n);
    }

    /** Hands a message from {@link #next} to the pipeline. */
    public void fire(ByteBuf message) {
        readPending = false;
        channel.pipeline().fireChannelRead(message);
    }

    /**
     * After a message: whether the loop goes on, asking the allocator's handle with {@code moreMaybe} (whether
     * more bytes may come in this loop); when it says stop, the loop ends here with its read-complete.
     */
    public boolean proceed(UncheckedBooleanSupplier moreMaybe) {
        if (loop == null) {
            return false;
        }
        boolean more = loop instanceof RecvByteBufAllocator.ExtendedHandle
                ? ((RecvByteBufAllocator.ExtendedHandle) loop).continueReading(moreMaybe)
                : loop.continueReading();
        if (!more) {
            complete();
        }
        return more;
    }

    /** Ends the loop in progress, if any, with its {@code channelReadComplete}. */
    public void complete() {
        RecvByteBufAllocator.Handle done = loop;
        if (done == null) {
            return;
        }
        loop = null;
        done.readComplete();
        channel.pipeline().fireChannelReadComplete();
    }
}
