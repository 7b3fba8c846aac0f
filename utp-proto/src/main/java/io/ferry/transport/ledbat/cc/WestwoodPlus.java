package io.ferry.transport.ledbat.cc;

/**
 * TCP Westwood+ (S. Mascolo, C. Casetti, M. Gerla, M. Sanadidi, R. Wang, "TCP Westwood: Bandwidth
 * Estimation for Enhanced Transport over Wireless Links", MobiCom 2001; the "+" sampling of
 * L. A. Grieco and S. Mascolo, "Performance evaluation and comparison of Westwood+, New Reno, and
 * Vegas TCP congestion control", ACM CCR 34(2), 2004): NewReno's growth, but after a loss the window
 * goes to the bandwidth-delay product the connection measured rather than to half of itself, so
 * losses that are not congestion (a lossy radio link) cost little.
 *
 * <ul>
 *   <li>Bandwidth samples are taken once per round trip (Westwood+; the original's per-ACK samples
 *       were aliased by ACK compression): {@code b_k = bytes acknowledged in the last RTT / its length},
 *       the RTT being the smoothed one the controller keeps.</li>
 *   <li>They are low-pass filtered: {@code BWE_k = alpha * BWE_(k-1) + (1 - alpha) * b_k} with
 *       {@link #ALPHA} = 0.9; the first sample initialises the filter.</li>
 *   <li>On a loss (at most once per round trip): {@code ssthresh = max(BWE * RTTmin, 2 * MSS)}, and
 *       {@code cwnd = ssthresh} if it was larger. On a timeout the same {@code ssthresh} and
 *       {@code cwnd} one packet.</li>
 *   <li>{@code RTTmin} is the smallest RTT sample seen; growth is {@link NewReno}'s (RFC 5681 with
 *       RFC 3465's byte counting, only while the window is used).</li>
 * </ul>
 * Pacing is the interface's default.
 */
public final class WestwoodPlus extends RenoFamily {
    /** The gain of the low-pass filter on the previous estimate. */
    public static final double ALPHA = 0.9;

    private long minRttNanos = Long.MAX_VALUE;
    private long sampleStartNanos = Long.MIN_VALUE;
    private long sampleBytes;
    private double bandwidthEstimate;

    /**
     * Creates a controller.
     *
     * @param parameters the connection's MSS
     */
    public WestwoodPlus(CongestionParameters parameters) {
        super(parameters);
    }

    @Override
    public String name() {
        return CongestionControls.WESTWOOD_PLUS;
    }

    @Override
    public void onAck(long bytesNewlyAcked, long bytesInFlightBeforeAck, long rttSampleNanos, long nowNanos) {
        if (rttSampleNanos > 0) {
            minRttNanos = Math.min(minRttNanos, rttSampleNanos);
        }
        noteRtt(rttSampleNanos);
        if (bytesNewlyAcked <= 0) {
            return;
        }
        sample(bytesNewlyAcked, nowNanos);
        if (mayGrow(bytesNewlyAcked, bytesInFlightBeforeAck, nowNanos)) {
            window.grow(bytesNewlyAcked, 1);
        }
    }

    private void sample(long acked, long nowNanos) {
        if (sampleStartNanos == Long.MIN_VALUE) {
            sampleStartNanos = nowNanos;
            return;
        }
        sampleBytes += acked;
        long elapsed = nowNanos - sampleStartNanos;
        if (smoothedRttNanos() <= 0 || elapsed < smoothedRttNanos()) {
            return;
        }
        double b = sampleBytes * 1e9 / elapsed;
        bandwidthEstimate = bandwidthEstimate == 0 ? b : ALPHA * bandwidthEstimate + (1 - ALPHA) * b;
        sampleStartNanos = nowNanos;
        sampleBytes = 0;
    }

    @Override
    public boolean onLoss(long nowNanos, long smoothedRttNanos) {
        if (!episode.tryBegin(nowNanos, smoothedRttNanos)) {
            return false;
        }
        double ssthresh = estimatedBdp();
        window.set(Math.min(window.cwnd, Math.max(ssthresh, (double) RenoWindow.MIN_PACKETS * window.mss)), ssthresh);
        return true;
    }

    @Override
    public void onTimeout(long nowNanos) {
        window.set(window.mss, estimatedBdp());
        episode.timedOut(nowNanos);
    }

    /** {@code BWE * RTTmin} in bytes; half the window before there is an estimate. */
    private double estimatedBdp() {
        if (bandwidthEstimate == 0 || minRttNanos == Long.MAX_VALUE) {
            return window.cwnd / 2;
        }
        return bandwidthEstimate * minRttNanos / 1e9;
    }

    /** The filtered bandwidth estimate BWE in bytes per second (0 before the first sample). */
    public double bandwidthEstimateBytesPerSecond() {
        return bandwidthEstimate;
    }

    /** RTTmin, or {@link Long#MAX_VALUE} before the first sample. */
    public long minRttNanos() {
        return minRttNanos;
    }

}
