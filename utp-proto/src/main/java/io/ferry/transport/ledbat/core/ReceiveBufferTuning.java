package io.ferry.transport.ledbat.core;

/**
 * How large a connection's receive buffer is, and how it grows: Linux's dynamic right-sizing of a TCP
 * receive buffer, on uTP's clocks.
 *
 * <p>Once per round trip the bytes the application consumed in it are counted (a measurement that took
 * longer, because the application paused, is scaled down to one round trip). A sender limited by
 * our window delivers a whole window per round trip; one limited by its congestion window or by the
 * path delivers less. So the buffer is set to twice the memory one round trip's consumption holds
 * (its payload times the measured memory charge per payload byte): a flow that fills the window makes
 * the buffer, and with it the window, double each round trip, like a slow start; a flow that uses
 * less than half of it leaves it as it is. It never exceeds the maximum and never shrinks. Since only
 * what the application consumed counts, a reader that stops or falls behind makes it grow no more.
 *
 * <p>The round trip is the receiver's own measurement: the peer's {@code timestamp_difference} (the
 * one-way delay of our last packet it received) plus ours of the packet carrying it. The offset
 * between the two clocks cancels in the sum, and so does the time the peer held our packet before
 * answering; what remains is the path's round trip with its queues. The smallest sample of the last
 * round trip is used.
 */
final class ReceiveBufferTuning {
    private final long max;
    private long limit;
    /** The round trip used to time a measurement; negative until a first sample. */
    private long rttNanos = -1;
    private long smallestSampleNanos = Long.MAX_VALUE;
    private boolean measuring;
    private long measureStartNanos;
    private long consumedAtStart;
    private long consumed;

    ReceiveBufferTuning(long initial, long max) {
        this.limit = initial;
        this.max = Math.max(initial, max);
    }

    /** The memory received data may hold now. */
    long limit() {
        return limit;
    }

    /** A round-trip sample from the timestamps, in nanoseconds. */
    void onRttSample(long nanos) {
        if (nanos <= 0) {
            return;
        }
        smallestSampleNanos = Math.min(smallestSampleNanos, nanos);
        if (rttNanos < 0) {
            rttNanos = nanos;
        }
    }

    /**
     * The application consumed {@code bytes} more of the delivered payload.
     *
     * @param chargePerByte memory charged per payload byte of recent packets (at least 1)
     * @return whether the buffer grew
     */
    boolean onConsumed(long bytes, double chargePerByte, long nowNanos) {
        consumed += bytes;
        if (limit >= max || rttNanos < 0) {
            return false;
        }
        if (!measuring) {
            measuring = true;
            measureStartNanos = nowNanos;
            consumedAtStart = consumed;
            return false;
        }
        long elapsed = nowNanos - measureStartNanos;
        if (elapsed < rttNanos) {
            return false;
        }
        // a measurement that ran long (the application paused) is scaled to one round trip
        double perRoundTrip = (consumed - consumedAtStart) * ((double) rttNanos / elapsed);
        measureStartNanos = nowNanos;
        consumedAtStart = consumed;
        if (smallestSampleNanos != Long.MAX_VALUE) {
            rttNanos = smallestSampleNanos;
            smallestSampleNanos = Long.MAX_VALUE;
        }
        long wanted = (long) Math.min((double) max, 2.0 * perRoundTrip * Math.max(1.0, chargePerByte));
        if (wanted <= limit) {
            return false;
        }
        limit = wanted;
        return true;
    }
}
