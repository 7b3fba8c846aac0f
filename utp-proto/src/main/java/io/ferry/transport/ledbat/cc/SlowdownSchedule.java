package io.ferry.transport.ledbat.cc;

/**
 * When LEDBAT++'s slowdowns happen (draft-irtf-iccrg-ledbat-plus-plus-06, "initial and periodic
 * slowdown"): the first a few round trips after the initial slow start ends, each later one a fixed
 * multiple of the previous slowdown's length after the regrowth that followed it ended. A slowdown drops
 * the window to its minimum so that the queue drains and every flow sharing it re-learns the base delay.
 * Clock-free: the controller passes the time in.
 */
final class SlowdownSchedule {

    private static final long NEVER = Long.MIN_VALUE;

    private final int initialDelayRtts;
    private final int intervalFactor;
    private long startNanos = NEVER;
    private long nextNanos = NEVER;
    private long count;

    /**
     * @param initialDelayRtts round trips from the initial slow start's end to the first slowdown
     * @param intervalFactor   the next slowdown starts this many slowdown lengths after a regrowth ends
     */
    SlowdownSchedule(int initialDelayRtts, int intervalFactor) {
        this.initialDelayRtts = initialDelayRtts;
        this.intervalFactor = intervalFactor;
    }

    /**
     * A slow start or regrowth ended at {@code nowNanos}: after a regrowth the next slowdown is due
     * {@code intervalFactor} times the slowdown's length (since {@link #start}, at least one round trip)
     * later; after the initial slow start, {@code initialDelayRtts} round trips later.
     */
    void growthEnded(boolean wasRegrowth, long nowNanos, long rttNanos) {
        if (wasRegrowth) {
            long length = Math.max(nowNanos - startNanos, rttNanos);
            nextNanos = nowNanos + intervalFactor * length;
        } else if (nextNanos == NEVER) {
            nextNanos = nowNanos + initialDelayRtts * rttNanos;
        }
    }

    /** Whether a slowdown is due now. */
    boolean isDue(long nowNanos) {
        return nextNanos != NEVER && nowNanos >= nextNanos;
    }

    /** A slowdown starts now; the next is scheduled when its regrowth ends. */
    void start(long nowNanos) {
        startNanos = nowNanos;
        nextNanos = NEVER;
        count++;
    }

    /** The queue drained at {@code nowNanos} as a slowdown drains it (a false alarm's yield, a timeout): the next is timed from there. */
    void restartFrom(long nowNanos) {
        startNanos = nowNanos;
    }

    /** How long since the current (or last) slowdown started. */
    long sinceStartNanos(long nowNanos) {
        return nowNanos - startNanos;
    }

    /** How many slowdowns began so far. */
    long count() {
        return count;
    }
}
