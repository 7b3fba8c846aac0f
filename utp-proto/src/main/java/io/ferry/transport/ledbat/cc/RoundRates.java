package io.ferry.transport.ledbat.cc;

/**
 * The delivery rates of a controller's round trips: the last one, the largest of the last few (what a
 * regrowth after a slowdown is sized to) and the largest over a long memory (the link's rate when this
 * flow had it to itself, which sizes the fair additive step).
 */
final class RoundRates {

    private final double[] recent;
    private int next;
    private double last;
    private final BucketedMax max;

    /**
     * @param recentRounds how many round trips {@link #recentMax()} covers
     * @param memoryNanos  how long {@link #max()} remembers a rate (two half-length buckets)
     */
    RoundRates(int recentRounds, long memoryNanos) {
        this.recent = new double[recentRounds];
        this.max = new BucketedMax(memoryNanos / 2);
    }

    /** A round trip ended at {@code nowNanos} having delivered {@code bytesPerSecond}. */
    void add(double bytesPerSecond, long nowNanos) {
        last = bytesPerSecond;
        recent[next++ % recent.length] = bytesPerSecond;
        max.add(bytesPerSecond, nowNanos);
    }

    /** The last round trip's rate, in bytes per second (0 before the first). */
    double last() {
        return last;
    }

    /** The largest rate of the last few round trips. */
    double recentMax() {
        double m = 0;
        for (double r : recent) {
            m = Math.max(m, r);
        }
        return m;
    }

    /** The largest rate over the memory. */
    double max() {
        return max.get();
    }
}
