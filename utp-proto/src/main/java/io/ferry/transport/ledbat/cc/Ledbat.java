package io.ferry.transport.ledbat.cc;

/**
 * LEDBAT congestion control (RFC 6817): keeps the queuing delay it adds near a target and yields to
 * loss-based flows that fill the queue.
 *
 * <ul>
 *   <li>base delay: minimum one-way delay over ten one-minute buckets ({@link BaseDelayHistory});</li>
 *   <li>current delay: minimum of the last four samples ({@link CurrentDelayFilter});</li>
 *   <li>{@code queuing_delay = current - base}, clamped to the latest RTT sample (a one-way delay
 *       cannot exceed the round trip; this bounds the error of a drifting peer clock);</li>
 *   <li>{@code off_target = (TARGET - queuing_delay) / TARGET};
 *       {@code cwnd += GAIN * off_target * bytes_newly_acked * MSS / cwnd} with {@code GAIN = 1};</li>
 *   <li>the window never grows beyond {@code flightsize + ALLOWED_INCREASE * MSS} (no growth when
 *       not window-limited), never falls below {@code MIN_CWND * MSS} on an ACK, halves on loss at
 *       most once per round trip and collapses to one packet on a retransmission timeout.</li>
 * </ul>
 *
 * <p>With slow start enabled, the window starts growing by the bytes acknowledged (doubling per round
 * trip) until the queuing delay exceeds half the target, a loss or a timeout; from then
 * on only the RFC 6817 rule applies. After a timeout, slow start runs again up to half the window
 * the timeout interrupted, as in TCP. Without slow start this class follows RFC 6817 exactly.
 */
public final class Ledbat implements CongestionControl {
    /** RFC 6817 GAIN; must not exceed 1. */
    static final double GAIN = 1.0;
    /** RFC 6817 ALLOWED_INCREASE, in packets. */
    static final int ALLOWED_INCREASE = 1;
    /** RFC 6817 MIN_CWND, in packets. */
    static final int MIN_CWND = 2;
    /** RFC 6817 INIT_CWND, in packets. */
    static final int INIT_CWND = 2;
    /**
     * Slow start ends once the queuing delay exceeds this fraction of the target. The delay signal
     * lags one round trip, during which the window still doubles, and RFC 6817's linear decrease
     * drains an overshoot only slowly; leaving at half the target lands the queue near the target.
     */
    static final double SLOW_START_EXIT_FRACTION = 0.5;

    private static final long NEVER = Long.MIN_VALUE;

    private final int mss;
    private final long targetMicros;
    private final boolean slowStart;
    private final OneWayDelay delay = new OneWayDelay();

    private double cwnd;
    private boolean slowStarting;
    private double ssthresh;
    private long lastReductionNanos = NEVER;

    /**
     * Creates a controller.
     *
     * @param parameters the connection's MSS and delay target
     * @param slowStart  whether to start with slow start (see the class description)
     */
    public Ledbat(CongestionParameters parameters, boolean slowStart) {
        this.mss = parameters.maxPayloadBytes();
        this.targetMicros = parameters.targetDelayMicros();
        this.slowStart = slowStart;
        this.cwnd = (double) INIT_CWND * mss;
        this.slowStarting = slowStart;
        this.ssthresh = Double.MAX_VALUE;
    }

    @Override
    public String name() {
        return slowStart ? CongestionControls.LEDBAT_CLASSIC : CongestionControls.LEDBAT_STRICT;
    }

    @Override
    public void onDelaySample(int delayMicros32, long nowNanos) {
        delay.addSample(delayMicros32, nowNanos);
    }

    @Override
    public void onAck(long bytesNewlyAcked, long bytesInFlightBeforeAck, long rttSampleNanos, long nowNanos) {
        delay.addRtt(rttSampleNanos / 1000);
        if (bytesNewlyAcked <= 0 || delay.isEmpty()) {
            return;
        }
        double queuingDelay = queuingDelayMicros();
        double before = cwnd;
        double cap;
        if (inSlowStart() && queuingDelay > SLOW_START_EXIT_FRACTION * targetMicros) {
            slowStarting = false;
        }
        if (inSlowStart()) {
            cwnd += bytesNewlyAcked;
            cap = Math.max(before, (double) bytesInFlightBeforeAck + Math.max(bytesNewlyAcked, mss));
        } else {
            double offTarget = (targetMicros - queuingDelay) / targetMicros;
            cwnd += GAIN * offTarget * bytesNewlyAcked * mss / cwnd;
            cap = Math.max(before, (double) bytesInFlightBeforeAck + (double) ALLOWED_INCREASE * mss);
        }
        cwnd = Math.max(Math.min(cwnd, cap), (double) MIN_CWND * mss);
        if (slowStarting && cwnd >= ssthresh) {
            slowStarting = false;
        }
    }

    @Override
    public boolean onLoss(long nowNanos, long smoothedRttNanos) {
        if (lastReductionNanos != NEVER && smoothedRttNanos > 0 && nowNanos - lastReductionNanos < smoothedRttNanos) {
            return false;
        }
        cwnd = Math.max(cwnd / 2, (double) MIN_CWND * mss);
        slowStarting = false;
        lastReductionNanos = nowNanos;
        return true;
    }

    @Override
    public void onTimeout(long nowNanos) {
        if (slowStart) {
            slowStarting = true;
            ssthresh = Math.max(cwnd / 2, (double) MIN_CWND * mss);
        }
        cwnd = mss;
        lastReductionNanos = nowNanos;
    }

    @Override
    public long cwndBytes() {
        return (long) cwnd;
    }

    @Override
    public boolean inSlowStart() {
        return slowStarting;
    }

    @Override
    public long queuingDelayMicros() {
        return delay.queuingMicros();
    }

    @Override
    public long baseDelayMicros() {
        return delay.baseMicros();
    }
}
