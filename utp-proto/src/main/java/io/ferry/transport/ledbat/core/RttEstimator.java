package io.ferry.transport.ledbat.core;

/**
 * Round-trip time and retransmission timeout per RFC 6298: smoothed RTT and RTT variation with gains
 * 1/8 and 1/4, {@code RTO = max(minRto, SRTT + 4 * RTTVAR)}, an initial RTO of one second, doubling on
 * every timeout up to {@code maxRto}. The back-off ends with a new sample or, as in Linux, as soon as
 * an acknowledgement shows progress (under heavy loss a clean sample may take many round trips, and
 * progress already proves the path works). Callers apply Karn's rule by not sampling retransmitted
 * packets.
 */
final class RttEstimator {
    static final long INITIAL_RTO_NANOS = 1_000_000_000L;

    private final long minRtoNanos;
    private final long maxRtoNanos;
    private long srttNanos = -1;
    private long rttVarNanos = -1;
    private long minRttNanos = -1;
    private long baseRtoNanos;
    private int backoff;

    RttEstimator(long minRtoNanos, long maxRtoNanos) {
        this.minRtoNanos = minRtoNanos;
        this.maxRtoNanos = maxRtoNanos;
        this.baseRtoNanos = clamp(INITIAL_RTO_NANOS);
    }

    void onSample(long rttNanos) {
        long sample = Math.max(1, rttNanos);
        minRttNanos = minRttNanos < 0 ? sample : Math.min(minRttNanos, sample);
        if (srttNanos < 0) {
            srttNanos = sample;
            rttVarNanos = sample / 2;
        } else {
            rttVarNanos = (3 * rttVarNanos + Math.abs(srttNanos - sample)) / 4;
            srttNanos = (7 * srttNanos + sample) / 8;
        }
        baseRtoNanos = clamp(srttNanos + 4 * rttVarNanos);
        backoff = 0;
    }

    void resetBackOff() {
        backoff = 0;
    }

    void backOff() {
        if (backoff < 30) {
            backoff++;
        }
    }

    long rtoNanos() {
        long rto = baseRtoNanos;
        for (int i = 0; i < backoff && rto < maxRtoNanos; i++) {
            rto <<= 1;
        }
        return Math.min(rto, maxRtoNanos);
    }

    /** Smoothed RTT, or -1 before the first sample. */
    long srttNanos() {
        return srttNanos;
    }

    /** Smallest RTT sample seen, or -1 before the first sample. */
    long minRttNanos() {
        return minRttNanos;
    }

    /** RTT variation, or -1 before the first sample. */
    long rttVarNanos() {
        return rttVarNanos;
    }

    private long clamp(long rto) {
        return Math.min(Math.max(rto, minRtoNanos), maxRtoNanos);
    }
}
