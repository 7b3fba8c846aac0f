package io.ferry.transport.ledbat.cc;

/**
 * The base-delay estimate of RFC 6817: the minimum one-way delay seen over the last
 * {@link #BUCKETS} minutes, kept as one minimum per minute so that a route change or clock drift is
 * forgotten after at most ten minutes.
 *
 * <p>Samples are raw 32-bit values that wrap and include the clock offset between the hosts, so they
 * are compared modulo 2^32 ({@code a} is smaller than {@code b} when {@code (int) (a - b) < 0}); this
 * holds as long as all samples in the history lie within 2^31 microseconds (about 35 minutes) of each
 * other, which any real delay variation does.
 */
final class BaseDelayHistory {
    /** Number of one-minute buckets kept (RFC 6817 BASE_HISTORY). */
    static final int BUCKETS = 10;
    /** Length of one bucket. */
    static final long BUCKET_NANOS = 60_000_000_000L;

    private final int[] buckets = new int[BUCKETS];
    private int count;
    private int newest;
    private long newestBucketIndex;
    private int base;

    /** Adds a sample taken at {@code nowNanos}. */
    void add(int delay, long nowNanos) {
        long bucketIndex = Math.floorDiv(nowNanos, BUCKET_NANOS);
        if (count == 0) {
            count = 1;
            newest = 0;
            buckets[0] = delay;
            newestBucketIndex = bucketIndex;
            base = delay;
            return;
        }
        if (bucketIndex != newestBucketIndex) {
            newestBucketIndex = bucketIndex;
            newest = (newest + 1) % BUCKETS;
            buckets[newest] = delay;
            if (count < BUCKETS) {
                count++;
                base = min(base, delay);
            } else {
                recomputeBase();
            }
            return;
        }
        if (isLess(delay, buckets[newest])) {
            buckets[newest] = delay;
            base = min(base, delay);
        }
    }

    /** Returns whether any sample was added. */
    boolean isEmpty() {
        return count == 0;
    }

    /** Returns the minimum over the history (raw 32-bit value). Undefined when empty. */
    int base() {
        return base;
    }

    private void recomputeBase() {
        int m = buckets[newest];
        for (int i = 0; i < count; i++) {
            m = min(m, buckets[i]);
        }
        base = m;
    }

    static boolean isLess(int a, int b) {
        return a - b < 0;
    }

    static int min(int a, int b) {
        return isLess(a, b) ? a : b;
    }
}
