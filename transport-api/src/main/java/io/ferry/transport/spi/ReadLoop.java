package io.ferry.transport.spi;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

import java.util.Queue;

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

    /** Marks the end of the input in a {@link #drain drained} queue, after the bytes before it. */
    public static final Object END = new Object();

    /** What {@link #drain} asks of the channel whose queue it drains. */
    public interface Inbound {
        /** Whether the pipeline may have bytes now (open; not closing). */
        boolean accepting();

        /** {@link #END} came, after every byte before it (a read-complete, if due, has fired). */
        void endOfInput();

        /** A message of {@code bytes} went to the pipeline (a window may open again). */
        void consumed(int bytes);

        /** Whether more bytes may come in this read loop (for the allocator's handle). */
        boolean moreMayCome();

        /** Whether the loop stays open though the queue ran dry (more of the same batch is coming). */
        boolean batchContinues();
    }

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

    /**
     * Hands the ready buffers of {@code queue} (and an {@link #END}) to the pipeline in read loops, as far
     * as auto-read and a pending {@code read()} allow: the one place both uTP's reassembled payloads and a
     * hosted channel's crossings are read. Not re-entrant: the caller guards against a handler's
     * {@code read()} calling back into it. A loop still in progress when the queue runs dry ends with its
     * read-complete, unless {@link Inbound#batchContinues()}; its handler may {@code read()} again, so the
     * queue is looked at once more.
     */
    public void drain(Queue<Object> queue, Inbound channel) {
        do {
            while (channel.accepting() && !queue.isEmpty()) {
                Object head = queue.peek();
                if (head == END) {
                    queue.poll();
                    complete();
                    channel.endOfInput();
                    continue;
                }
                if (!reading()) {
                    break;
                }
                ByteBuf data = (ByteBuf) head;
                ByteBuf message = next(data);
                if (message == data) {
                    queue.poll();
                }
                int bytes = message.readableBytes();
                fire(message);
                channel.consumed(bytes);
                proceed(channel::moreMayCome);
            }
            if (channel.batchContinues() || !inProgress()) {
                return;
            }
            complete();
        } while (true);
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
