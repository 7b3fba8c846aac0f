package io.ferry.transport.udt.proto.core;

/**
 * A graceful close's deadlines: UDT4's linger ({@code UDT_LINGER}: what is written is still sent and
 * acknowledged, then the shutdown goes, or goes regardless once the linger ran out), and Ferry's wait for
 * the ACK2 of the final ACK. Owned by {@link UdtConnection}, whose timer ends both; it reads no clock.
 *
 * <p>Why the wait: UDT's shutdown carries no acknowledgement. When the ACK of the peer's last data was
 * lost, a peer that saw the shutdown with bytes unacknowledged took a delivered stream for lost (a
 * striped close over 2 % loss failed so, once in several runs). The ACK timer repeats the full ACK every
 * round trip; the wait ends with its ACK2, or after {@link #FINAL_ACK_WAIT_RTTS} round trips (at least
 * {@link #FINAL_ACK_WAIT_MIN_NANOS}) or the linger, whichever comes first (a peer gone answers nothing).
 */
final class UdtClosing {
    static final int FINAL_ACK_WAIT_RTTS = 4;
    static final long FINAL_ACK_WAIT_MIN_NANOS = 50_000_000L;

    private long deadlineNanos = Long.MAX_VALUE;
    private long finalAckDeadlineNanos = Long.MAX_VALUE;

    /** The application closed at {@code nowNanos}, lingering at most {@code lingerNanos}. */
    void start(long lingerNanos, long nowNanos) {
        deadlineNanos = nowNanos + Math.max(0, lingerNanos);
    }

    /** Whether the linger ran out: the shutdown goes now, with or without the data's acknowledgement. */
    boolean expired(long nowNanos) {
        return nowNanos >= deadlineNanos;
    }

    /**
     * Whether the shutdown waits on for the ACK2 of the final ACK.
     *
     * @param ackOutstanding whether the peer has not yet confirmed our acknowledgement of its last data
     */
    boolean awaitFinalAck2(boolean ackOutstanding, long rttUnitNanos, long nowNanos) {
        if (!ackOutstanding || nowNanos >= deadlineNanos || nowNanos >= finalAckDeadlineNanos) {
            return false;
        }
        if (finalAckDeadlineNanos == Long.MAX_VALUE) {
            long wait = Math.max(FINAL_ACK_WAIT_MIN_NANOS, FINAL_ACK_WAIT_RTTS * rttUnitNanos);
            finalAckDeadlineNanos = nowNanos + wait;
            deadlineNanos = Math.min(deadlineNanos, finalAckDeadlineNanos); // one deadline ends both waits
        }
        return true;
    }

    /** When the connection's timer must call back for this close; {@link Long#MAX_VALUE} before it began. */
    long deadlineNanos() {
        return deadlineNanos;
    }
}
