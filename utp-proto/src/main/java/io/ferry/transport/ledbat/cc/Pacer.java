package io.ferry.transport.ledbat.cc;

/**
 * A token bucket that spreads packets over time at a given rate, allowing a small burst so that
 * timer granularity does not throttle fast links.
 *
 * <p>The bucket holds at most {@code max(minBurstBytes, rate * BURST_NANOS)} bytes. A packet may be
 * sent whenever the bucket is not empty; sending takes the packet's size, possibly driving the bucket
 * negative, and the next send waits until it refills above zero.
 *
 * <p>A sender held back is woken when half a bucket has refilled, not as soon as one packet may
 * go: at high rates the packets then leave in runs (half a millisecond's worth, which the endpoint
 * sends as one GSO write and the receiver reads as one GRO buffer) rather than one per timer, as
 * Linux sizes a paced TCP flow's TSO segments to about a millisecond of its rate. Woken per packet,
 * 16 uTP connections into one listener on loopback moved 450-610 MiB/s with GSO runs of 3-6
 * packets; woken per half bucket, 760-980 MiB/s (and one connection 1.1-1.7 GB/s instead of
 * 0.55-1.1). At 100 Mbit/s half a bucket is 4-5 packets, a queue of half a millisecond.
 *
 * <p>The debt is bounded by one bucket at the current rate. Packets that must leave whatever the
 * pacer says (a fast retransmission, a tail-loss probe) still take their tokens, and a debt run up at
 * a high rate would otherwise be repaid at whatever rate follows: after a loss on loopback cut the
 * window from megabytes to one packet and the RTT estimate was 100 ms, the bucket owed 24 s of
 * sending, and even the retransmission timeout's resend waited behind it.
 */
public final class Pacer {
    /** Time worth of tokens a full bucket holds, beyond the minimum burst. */
    static final long BURST_NANOS = 1_000_000L;

    private final int minBurstBytes;
    private double tokens;
    private long lastNanos;
    private boolean started;

    /**
     * Creates a pacer.
     *
     * @param minBurstBytes the smallest burst allowed, in bytes (typically two packets)
     */
    public Pacer(int minBurstBytes) {
        if (minBurstBytes < 1) {
            throw new IllegalArgumentException("minBurstBytes must be >= 1, was " + minBurstBytes);
        }
        this.minBurstBytes = minBurstBytes;
        this.tokens = minBurstBytes;
    }

    /**
     * Returns whether a packet may be sent now.
     *
     * @param nowNanos the current time
     * @param rate     the pacing rate in bytes per second, {@link Long#MAX_VALUE} for no pacing
     */
    public boolean canSend(long nowNanos, long rate) {
        if (rate == Long.MAX_VALUE) {
            return true;
        }
        refill(nowNanos, rate);
        return tokens > 0;
    }

    /** Takes {@code bytes} from the bucket for a packet sent at {@code nowNanos}. */
    public void onSent(int bytes, long nowNanos, long rate) {
        if (rate == Long.MAX_VALUE) {
            return;
        }
        refill(nowNanos, rate);
        tokens -= bytes;
    }

    /**
     * Returns the earliest time the next packet may be sent: {@code nowNanos} if it may be sent now.
     */
    public long nextSendTimeNanos(long nowNanos, long rate) {
        if (rate == Long.MAX_VALUE) {
            return nowNanos;
        }
        refill(nowNanos, rate);
        if (tokens > 0) {
            return nowNanos;
        }
        double burst = Math.max(minBurstBytes, rate * (BURST_NANOS / 1e9));
        double waitNanos = (Math.max(1.0, burst / 2) - tokens) * 1e9 / rate;
        return nowNanos + Math.max(1L, (long) Math.ceil(waitNanos));
    }

    private void refill(long nowNanos, long rate) {
        double burst = Math.max(minBurstBytes, rate * (BURST_NANOS / 1e9));
        if (!started) {
            started = true;
            lastNanos = nowNanos;
            tokens = burst;
            return;
        }
        long elapsed = nowNanos - lastNanos;
        if (elapsed > 0) {
            tokens = Math.min(burst, tokens + rate * (elapsed / 1e9));
            lastNanos = nowNanos;
        }
        tokens = Math.max(tokens, -burst);
    }
}
