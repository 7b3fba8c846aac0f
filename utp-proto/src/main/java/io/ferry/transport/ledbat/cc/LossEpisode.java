package io.ferry.transport.ledbat.cc;

/**
 * The loss episodes of a window-based controller: a window is reduced at most once per round trip
 * (RFC 6582's recovery period, measured here by time, since the connection's core already ignores
 * losses of packets sent before the last reduction), and does not grow during that round trip, while
 * the packets that were in flight at the loss are acknowledged.
 */
final class LossEpisode {
    private static final long NEVER = Long.MIN_VALUE;

    private long startNanos = NEVER;
    private long lengthNanos;

    /**
     * Starts an episode unless one started less than {@code smoothedRttNanos} ago.
     *
     * @return whether an episode started, i.e. whether the window should be reduced
     */
    boolean tryBegin(long nowNanos, long smoothedRttNanos) {
        if (startNanos != NEVER && smoothedRttNanos > 0 && nowNanos - startNanos < smoothedRttNanos) {
            return false;
        }
        startNanos = nowNanos;
        lengthNanos = Math.max(0, smoothedRttNanos);
        return true;
    }

    /** A retransmission timeout reduced the window: losses within the next round trip are the same event. */
    void timedOut(long nowNanos) {
        startNanos = nowNanos;
        lengthNanos = 0;
    }

    /** Whether the window was reduced less than a round trip ago (it then does not grow). */
    boolean inRecovery(long nowNanos) {
        return startNanos != NEVER && nowNanos - startNanos < lengthNanos;
    }
}
