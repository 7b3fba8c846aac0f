package io.ferry.transport.ledbat.core;

/**
 * Decides when received data is acknowledged: at once for anything unusual (out-of-order, duplicate,
 * FIN, window update), otherwise on every second in-order packet or when the delayed-ACK timer
 * expires, whichever comes first. Any packet sent carries the current {@code ack_nr}, so sending one
 * satisfies a pending acknowledgement.
 */
final class AckScheduler {
    static final int PACKETS_PER_ACK = 2;
    private static final long NONE = Long.MAX_VALUE;

    private final long delayNanos;
    private int unacked;
    private boolean immediate;
    private long deadlineNanos = NONE;

    AckScheduler(long delayNanos) {
        this.delayNanos = delayNanos;
    }

    /** An in-order data packet arrived. */
    void onInOrderPacket(long nowNanos) {
        unacked++;
        if (unacked >= PACKETS_PER_ACK || delayNanos == 0) {
            immediate = true;
        } else if (deadlineNanos == NONE) {
            deadlineNanos = nowNanos + delayNanos;
        }
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
