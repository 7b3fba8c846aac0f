package io.ferry.transport.ledbat.core;

/**
 * Decides when received data is acknowledged: at once for anything unusual (out-of-order, duplicate,
 * FIN, window update), otherwise on every second in-order packet or when the delayed-ACK timer
 * expires, whichever comes first. Any packet sent carries the current {@code ack_nr}, so sending one
 * satisfies a pending acknowledgement.
 *
 * <p>After a packet arrives out of order or twice (a sign of loss), the next {@link #QUICK_ACKS}
 * in-order packets are acknowledged at once too (like Linux's quick-ACK mode): a sender recovering
 * from loss usually has a window of a packet or two, so a delayed ACK would add the delay to every
 * round trip, and under heavy loss twice the ACKs make a lost ACK matter half as much.
 *
 * <p>Inside a batch of received datagrams (what one wake-up of the event loop reads, see
 * {@link UtpConnection#beginReadBatch}) in-order packets are acknowledged once, when the batch ends,
 * or every {@link #PACKETS_PER_ACK_IN_BATCH} packets if it is longer, as Linux acknowledges a GRO
 * aggregate once rather than each segment in it: the packets arrived together, and the ACKs every
 * second one would have been sent together too, each releasing two packets. On loopback with 16
 * connections into one listener they were a third of all datagrams, and the runs of packets the
 * senders could gather into one GSO send were three packets long.
 */
final class AckScheduler {
    static final int PACKETS_PER_ACK = 2;
    /** The most in-order packets of one read batch acknowledged together. */
    static final int PACKETS_PER_ACK_IN_BATCH = 32;
    static final int QUICK_ACKS = 16;
    private static final long NONE = Long.MAX_VALUE;

    private final long delayNanos;
    private int unacked;
    private int quickAcksLeft;
    private boolean immediate;
    private boolean batching;
    private long deadlineNanos = NONE;

    AckScheduler(long delayNanos) {
        this.delayNanos = delayNanos;
    }

    /** An in-order data packet arrived. */
    void onInOrderPacket(long nowNanos) {
        unacked++;
        if (quickAcksLeft > 0) {
            quickAcksLeft--;
            immediate = true;
        } else if (unacked >= (batching ? PACKETS_PER_ACK_IN_BATCH : PACKETS_PER_ACK) || delayNanos == 0) {
            immediate = true;
        } else if (deadlineNanos == NONE) {
            deadlineNanos = nowNanos + delayNanos;
        }
    }

    /** A batch of received datagrams begins: in-order packets wait for its end (or a full batch's worth). */
    void beginBatch() {
        batching = true;
    }

    /** The batch ended: what the per-packet rule would have acknowledged by now is due. */
    void endBatch() {
        batching = false;
        if (unacked >= PACKETS_PER_ACK) {
            immediate = true;
        }
    }

    /** A packet arrived out of order or twice: acknowledge it, and the next few, at once. */
    void onIrregularPacket() {
        immediate = true;
        quickAcksLeft = QUICK_ACKS;
    }

    /** Something that must be acknowledged without delay arrived. */
    void requestImmediate() {
        immediate = true;
    }

    /** Returns whether an acknowledgement should be sent now. */
    boolean isDue(long nowNanos) {
        return immediate || nowNanos >= deadlineNanos;
    }

    /** Returns when the pending acknowledgement must go out, or {@link Long#MAX_VALUE}. */
    long deadlineNanos() {
        return deadlineNanos;
    }

    /** A packet carrying the current {@code ack_nr} was sent. */
    void onAckSent() {
        unacked = 0;
        immediate = false;
        deadlineNanos = NONE;
    }
}
