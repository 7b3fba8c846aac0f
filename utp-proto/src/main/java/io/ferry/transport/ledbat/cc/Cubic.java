package io.ferry.transport.ledbat.cc;

/**
 * CUBIC (RFC 9438): after a congestion event the window follows
 * {@code W_cubic(t) = C * (t - K)^3 + W_max} (in packets, {@code t} in seconds since the event,
 * {@code K = cbrt((W_max - cwnd_epoch) / C)}), so it returns quickly towards the window where the loss
 * happened, lingers near it, and then probes beyond it; on short paths with small windows it grows at
 * least as fast as Reno would (the Reno-friendly region).
 *
 * <ul>
 *   <li>{@link #C} = 0.4, {@link #BETA} = 0.7; a congestion event sets {@code ssthresh = cwnd * beta}
 *       (at least two packets) and {@code cwnd = ssthresh}, at most once per round trip.</li>
 *   <li>Fast convergence (4.7): if the window is below the {@code W_max} of the previous event, the new
 *       {@code W_max} is {@code cwnd * (1 + beta) / 2}, releasing bandwidth to newer flows.</li>
 *   <li>Congestion avoidance (4.4): each acknowledged packet moves the window by
 *       {@code (target - cwnd) / cwnd}, with {@code target = W_cubic(t + RTT)} clamped to
 *       {@code [cwnd, 1.5 * cwnd]}.</li>
 *   <li>Reno-friendly region (4.3): {@code W_est} grows by {@code alpha_cubic = 3 (1 - beta) / (1 + beta)}
 *       packets per window acknowledged (1 once {@code W_est} reached the window before the last
 *       event); while {@code W_cubic(t) < W_est} the window is {@code W_est}.</li>
 *   <li>Timeout (4.8): {@code ssthresh} as for a congestion event, {@code cwnd} one packet; the first
 *       congestion avoidance after it starts an epoch with {@code K = 0} and {@code W_max} the window at
 *       its start.</li>
 *   <li>Slow start is RFC 5681's with RFC 3465's byte counting ({@link RenoWindow}); HyStart++ is not
 *       used. The window grows only while it is used ({@link CwndValidation}) and not in the round trip
 *       after a reduction.</li>
 * </ul>
 * Pacing is the interface's default.
 */
public final class Cubic extends RenoFamily {
    /** RFC 9438 C, in packets per second cubed. */
    public static final double C = 0.4;
    /** RFC 9438 beta_cubic, the multiplicative decrease factor. */
    public static final double BETA = 0.7;
    /** RFC 9438 alpha_cubic: the Reno-friendly additive increase, in packets per round trip. */
    public static final double ALPHA = 3 * (1 - BETA) / (1 + BETA);

    private static final long NONE = Long.MIN_VALUE;


    /** In packets, like {@code wEst} and {@code cwndPrior}. */
    private double wMax;
    private double k;
    private long epochStartNanos = NONE;
    private double wEst;
    private double cwndPrior;

    /**
     * Creates a controller.
     *
     * @param parameters the connection's MSS
     */
    public Cubic(CongestionParameters parameters) {
        super(parameters);
    }

    @Override
    public String name() {
        return CongestionControls.CUBIC;
    }

    @Override
    public void onAck(long bytesNewlyAcked, long bytesInFlightBeforeAck, long rttSampleNanos, long nowNanos) {
        noteRtt(rttSampleNanos);
        if (!mayGrow(bytesNewlyAcked, bytesInFlightBeforeAck, nowNanos)) {
            return;
        }
        if (window.inSlowStart()) {
            window.grow(bytesNewlyAcked, 1);
            return;
        }
        double cwnd = window.cwnd / mss;
        if (epochStartNanos == NONE) {
            epochStartNanos = nowNanos;
            if (cwnd < wMax) {
                k = Math.cbrt((wMax - cwnd) / C);
            } else {
                k = 0;
                wMax = cwnd;
            }
            wEst = cwnd;
        }
        double acked = (double) bytesNewlyAcked / mss;
        double t = (nowNanos - epochStartNanos) / 1e9;
        double rtt = Math.max(0, smoothedRttNanos()) / 1e9;
        wEst += (wEst >= cwndPrior ? 1 : ALPHA) * acked / cwnd;
        if (wCubic(t) < wEst) {
            cwnd = wEst;
        } else {
            double target = Math.min(Math.max(wCubic(t + rtt), cwnd), 1.5 * cwnd);
            cwnd += (target - cwnd) / cwnd * acked;
        }
        window.cwnd = cwnd * mss;
    }

    /** {@code W_cubic(t)} of the current epoch, in packets. */
    double wCubic(double seconds) {
        double d = seconds - k;
        return C * d * d * d + wMax;
    }

    @Override
    public boolean onLoss(long nowNanos, long smoothedRttNanos) {
        if (!episode.tryBegin(nowNanos, smoothedRttNanos)) {
            return false;
        }
        double cwnd = window.cwnd / mss;
        cwndPrior = cwnd;
        wMax = cwnd < wMax ? cwnd * (1 + BETA) / 2 : cwnd;
        double reduced = window.cwnd * BETA;
        window.set(reduced, reduced);
        k = Math.cbrt(Math.max(0, wMax - window.cwnd / mss) / C);
        epochStartNanos = nowNanos;
        wEst = window.cwnd / mss;
        return true;
    }

    @Override
    public void onTimeout(long nowNanos) {
        cwndPrior = window.cwnd / mss;
        window.set(mss, window.cwnd * BETA);
        epochStartNanos = NONE;
        wMax = 0;
        episode.timedOut(nowNanos);
    }

    /** {@code W_max} of the current epoch, in packets. */
    public double wMaxPackets() {
        return wMax;
    }

    /** {@code K} of the current epoch, in seconds. */
    public double kSeconds() {
        return k;
    }

    /** The Reno-friendly estimate {@code W_est}, in packets. */
    public double renoEstimatePackets() {
        return wEst;
    }
}
