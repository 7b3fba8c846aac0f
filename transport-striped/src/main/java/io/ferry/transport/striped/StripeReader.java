package io.ferry.transport.striped;

import io.ferry.transport.spi.ReadLoop;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.socket.DuplexChannel;

import java.net.ProtocolException;

/**
 * The reading side of a striped channel (its event loop): puts the members' blocks back in order
 * ({@link StripeReassembly}), hands the stream to the pipeline in Netty's read loops ({@link ReadLoop}),
 * and switches the members' auto-read so that the out-of-order bytes held stay bounded: past
 * {@link StripedChannel#REORDER_LIMIT} only members not ahead of the stream's next byte read (one of
 * them carries it), so a stalled member holds the others back through their own flow control.
 */
final class StripeReader {

    private final StripedChannel channel;
    private final StripeReassembly reorder = new StripeReassembly();
    final ReadLoop reads;
    private boolean delivering;
    private volatile long bytesReceived;

    StripeReader(StripedChannel channel) {
        this.channel = channel;
        this.reads = new ReadLoop(channel);
    }

    /** Application bytes delivered in order to the pipeline; safe from any thread. */
    long bytesReceived() {
        return bytesReceived;
    }

    /** Out-of-order bytes held; safe from any thread. */
    long heldBytes() {
        return reorder.heldBytes();
    }

    /** Drops what is held (the input ended or the channel closed). */
    void discard() {
        reorder.discard();
    }

    /**
     * Takes member {@code m}'s piece of the stream at {@code offset}; a piece that repeats bytes already
     * taken is released and fails the channel (the peer is not a correct striped sender).
     */
    void add(StripeMember m, long offset, ByteBuf piece) {
        if (!reorder.add(offset, piece)) {
            piece.release();
            channel.fail(m, new ProtocolException("member " + m.index + " of " + channel + " sent bytes at offset " + offset
                    + " again (the stream is at " + reorder.nextOffset() + "): the peer is not a correct striped sender"));
            return;
        }
        m.lastEnd = Math.max(m.lastEnd, offset + piece.readableBytes());
    }

    /**
     * Delivers what is in order while the pipeline reads: messages of at most the allocator's guess, one
     * read-complete per loop (a handler that read()s again in its read-complete gets the next loop here);
     * then ends the input when every member's has ended, or fails the channel if the stream has a gap
     * there, or lets the members read on.
     */
    void deliver(StripeMember[] members) {
        if (delivering || !channel.isOpen() || members == null) {
            return; // before the connect a read() stays pending, as Netty's socket channels keep it
        }
        delivering = true;
        try {
            while (channel.isOpen()) {
                while (channel.isOpen() && reads.reading() && reorder.hasNext()) {
                    ByteBuf data = reorder.takeNext();
                    ByteBuf message = reads.next(data);
                    int length = message.readableBytes();
                    bytesReceived += length;
                    reorder.delivered(length, message != data ? data : null); // the rest of the piece is held again
                    reads.fire(message);
                    reads.proceed(reorder::hasNext);
                }
                if (!reads.inProgress()) {
                    break;
                }
                reads.complete();
            }
            if (!channel.isOpen()) {
                return;
            }
            if (allInputDone(members) && reorder.isEmpty()) {
                channel.endOfInput();
                return;
            }
            if (allInputDone(members) && !reorder.isEmpty() && !reorder.hasNext()) {
                channel.fail(members[0], new ProtocolException("every member of " + channel + " ended but the stream has a gap at offset "
                        + reorder.nextOffset() + ": the peer is not a correct striped sender"));
                return;
            }
            pump(members, channel.wantsBytes());
        } finally {
            delivering = false;
        }
    }

    private static boolean allInputDone(StripeMember[] members) {
        for (StripeMember m : members) {
            if (!m.inputDone) {
                return false;
            }
        }
        return true;
    }

    /**
     * Lets each member read while the channel {@code wants} bytes and the member may bring them: every
     * member while the out-of-order bytes are under the limit, beyond it only those not ahead of the
     * stream's next byte. Members read with auto-read, switched here.
     */
    void pump(StripeMember[] members, boolean wants) {
        if (members == null) {
            return;
        }
        boolean want = wants && reads.reading();
        for (StripeMember m : members) {
            boolean on = want && !m.inputDone && (reorder.heldBytes() < StripedChannel.REORDER_LIMIT || m.lastEnd <= reorder.nextOffset());
            if (on != m.reading) {
                m.reading = on;
                autoRead(m.channel, on);
            }
        }
    }

    /** Switches a member's auto-read on its own loop, and on only while it can still read (its input may end meanwhile). */
    private static void autoRead(Channel ch, boolean on) {
        ch.eventLoop().execute(() -> {
            if (!on || (ch.isActive() && !(ch instanceof DuplexChannel && ((DuplexChannel) ch).isInputShutdown()))) {
                ch.config().setAutoRead(on);
            }
        });
    }
}
