package io.ferry.transport.ledbat.cc;

/**
 * The largest value seen over the last one to two spans of a clock (nanoseconds, or a count of round
 * trips), kept in two buckets: the current one and the one before it. Cheaper than a sliding window
 * ({@link WindowedMaxFilter}) and as good where the span only needs to be roughly right: LEDBAT++'s
 * largest recent delivery rate and largest standing queue.
 */
final class BucketedMax {
    private static final long UNSTARTED = Long.MIN_VALUE;

    private final long span;
    private double recent;
    private double older;
    private long bucketStart = UNSTARTED;

    /** @param span how long one bucket lasts, in the clock's unit */
    BucketedMax(long span) {
        this.span = span;
    }

    /** Adds a value seen at {@code clock} (never earlier than a previous one). */
    void add(double value, long clock) {
        if (bucketStart == UNSTARTED) {
            bucketStart = clock;
        } else if (clock - bucketStart >= span) {
            older = recent;
            recent = 0;
            bucketStart = clock;
        }
        recent = Math.max(recent, value);
    }

    /** The largest value of the two buckets, 0 before any. */
    double get() {
        return Math.max(recent, older);
    }
}
