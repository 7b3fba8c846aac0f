package io.ferry.transport.udt.proto.core;

/**
 * A connection's EXP timer (draft-gg-udt-03 §4 and §6.2; UDT4 4.11's {@code checkTimers}): when nothing
 * was heard for {@code max(n * (RTT + 4 RTTVar) + SYN, n * 300 ms)} after the n-th silent expiry, every
 * unacknowledged packet is taken for lost (or, with none, a keep-alive goes), and a peer silent for the
 * configured timeout once more than four expiries passed is dead. Hearing any packet but a keep-alive
 * starts the count again. Owned by {@link UdtConnection}; it reads no clock.
 *
 * <p>Ferry adds what UDT4 leaves out, the retransmission timeout's loss window (TCP's, RFC 5681 §3.1 and
 * RFC 6298 §5): after a silent expiry with data outstanding only {@link #LOSS_WINDOW_PACKETS} packets may
 * leave, the lowest unacknowledged first, until an ACK moves the edge or a NAK comes. UDT4 resends its whole
 * unacknowledged window at its unchanged rate on every expiry; behind a receiver whose socket overflowed
 * (200 clients of one server on 2 busy cores) that kept the overflow going, and clients whose every resend
 * was dropped were declared dead after 11 s. Feedback, not any packet heard, reopens the window: a side whose
 * ACKs were dropped while its peer's data still arrived resent its whole window on the first packet heard,
 * though the peer had all of it (all 29,000 resends of 200 server sides duplicates, 2026-11-30); the ACK
 * that follows the first resent pair now clears the loss list instead.
 */
final class UdtExpiry {
    private static final long MIN_EXPIRY_NANOS = 300_000_000L;
    /** Packets that may leave after a silent expiry until the peer's feedback comes: a packet pair. */
    static final int LOSS_WINDOW_PACKETS = 2;
    /** Silent expiries after which a peer silent for the timeout is dead (UDT4 waits for 16). */
    static final int EXPIRIES_BEFORE_DEATH = 4;

    private long lastHeardNanos;
    private long baseNanos;
    private int expiries = 1;
    /** Packets that may still leave before something is heard; -1 for no limit. */
    private long silentBudget = -1;

    UdtExpiry(long nowNanos) {
        lastHeardNanos = nowNanos;
        baseNanos = nowNanos;
    }

    /**
     * A packet arrived. A keep-alive says the peer lives, not that it got anything: the count goes on. The
     * loss window stays: only an ACK says what the peer has ({@link #acknowledged}).
     */
    void heard(long nowNanos, boolean keepAlive) {
        lastHeardNanos = nowNanos;
        if (!keepAlive) {
            baseNanos = nowNanos;
            expiries = 1;
        }
    }

    /** An ACK moved the edge or a NAK came: the peer hears us, and the loss window ends. */
    void acknowledged() {
        silentBudget = -1;
    }

    /** The connection was established: the silence counts from now. */
    void restart(long nowNanos) {
        heard(nowNanos, false);
        silentBudget = -1;
    }

    /** When the timer expires next, for UDT's unit {@code RTT + 4 RTTVar} ({@link UdtRtt#expiryNanos()}). */
    long deadlineNanos(long rttUnitNanos) {
        long interval = Math.max(expiries * rttUnitNanos + UdtConnection.SYN_NANOS,
                expiries * MIN_EXPIRY_NANOS);
        return baseNanos + interval;
    }

    /** Whether the peer is dead: silent for {@code timeoutNanos} with more than four expiries gone by. */
    boolean peerGone(long nowNanos, long timeoutNanos) {
        return nowNanos - lastHeardNanos >= timeoutNanos && expiries > EXPIRIES_BEFORE_DEATH;
    }

    /** Milliseconds since anything was heard, for the failure's message. */
    long silentMillis(long nowNanos) {
        return (nowNanos - lastHeardNanos) / 1_000_000;
    }

    /**
     * The timer expired and was handled at {@code nowNanos}.
     *
     * @param resent whether the unacknowledged packets were taken for lost (else a keep-alive went)
     */
    void expired(long nowNanos, boolean resent) {
        if (resent) {
            silentBudget = LOSS_WINDOW_PACKETS;
        }
        expiries++;
        baseNanos = nowNanos;
    }

    /** Whether the loss window lets another packet leave now. */
    boolean maySend() {
        return silentBudget != 0;
    }

    /** A data packet left. */
    void sent() {
        if (silentBudget > 0) {
            silentBudget--;
        }
    }

    int count() {
        return expiries;
    }
}
