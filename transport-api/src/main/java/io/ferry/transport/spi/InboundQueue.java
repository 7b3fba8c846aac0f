package io.ferry.transport.spi;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.ReferenceCountUtil;

import java.util.ArrayDeque;

/**
 * What a user-space stream channel received and its application has not read yet, handed to the pipeline
 * in Netty's read loops ({@link ReadLoop}): buffers in order, then perhaps {@link ReadLoop#END}. The leaf
 * says whether the pipeline takes bytes now and what a consumed byte frees (a window, a paused stream).
 * Event-loop only, like its channel.
 */
public abstract class InboundQueue implements ReadLoop.Inbound {

    private final Channel channel;
    private final ArrayDeque<Object> queue = new ArrayDeque<>();
    /** The channel's read loops. */
    public final ReadLoop reads;
    private boolean delivering;
    private boolean consumedAny;

    protected InboundQueue(Channel channel) {
        this.channel = channel;
        this.reads = new ReadLoop(channel);
    }

    /** Queues bytes, or {@link ReadLoop#END} for the end of the stream. */
    public void add(Object dataOrEnd) {
        queue.add(dataOrEnd);
    }

    public boolean isEmpty() {
        return queue.isEmpty();
    }

    /** Whether a read loop is handing bytes to the pipeline right now (a call from inside it must not start another). */
    public boolean delivering() {
        return delivering;
    }

    /** Hands what the pipeline will take now to it; returns whether it took bytes (a window update may be due). */
    public boolean deliver() {
        delivering = true;
        consumedAny = false;
        try {
            reads.drain(queue, this);
        } finally {
            delivering = false;
        }
        return consumedAny;
    }

    /**
     * Hands the pipeline what it asks for now, unless a read loop is already doing so (a call from inside it)
     * or the channel is not registered yet; returns whether it took bytes. The channel stays open.
     */
    public boolean drain() {
        if (delivering || !channel.isRegistered()) {
            return false;
        }
        return deliver();
    }

    /**
     * Closes the channel once its transport's connection is {@code over} and the application has read
     * everything: what arrived before the end is read first, as from a socket whose peer went.
     */
    public void closeIfOver(boolean over) {
        if (over && channel.isOpen() && queue.isEmpty() && !delivering) {
            if (channel.isRegistered()) {
                reads.complete();
            }
            channel.unsafe().close(channel.unsafe().voidPromise());
        }
    }

    /** Drops what is queued (the channel closed, or stopped reading); each buffer's bytes are {@link #freed}. */
    public void release() {
        for (Object o; (o = queue.poll()) != null; ) {
            if (o instanceof ByteBuf buf) {
                int n = buf.readableBytes();
                ReferenceCountUtil.release(buf);
                freed(n);
            }
        }
    }

    @Override
    public final void consumed(int bytes) {
        consumedAny = true;
        freed(bytes);
    }

    /** {@code bytes} queued left the queue, read or dropped: what they held (a window, read-ahead) is free again. */
    protected abstract void freed(int bytes);

    /** Whether bytes wait that the pipeline has not taken (not counting the end). */
    protected final boolean bytesQueued() {
        return !queue.isEmpty() && queue.peek() != ReadLoop.END;
    }
}
