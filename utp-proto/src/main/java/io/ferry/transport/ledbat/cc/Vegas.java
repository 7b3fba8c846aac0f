package io.ferry.transport.ledbat.cc;

/**
 * TCP Vegas (L. Brakmo and L. Peterson, "TCP Vegas: End to End Congestion Avoidance on a Global
 * Internet", IEEE JSAC 13(8), 1995): keeps a few packets, not a full buffer, queued at the bottleneck
 * by comparing the rate the window should give with the rate it gives.
 *
 * <p>Once per round trip (a round ends when everything sent before it began has been acknowledged):
 * <pre>
 * BaseRTT  = the smallest RTT seen
 * RTT      = the smallest RTT sample of the round that just ended
 * Diff     = (Expected - Actual) * BaseRTT = cwnd * (RTT - BaseRTT) / RTT     (packets in the queue)
 * </pre>
 * <ul>
 *   <li>Congestion avoidance: {@code Diff < alpha} ({@value #ALPHA} packets): one packet more;
 *       {@code Diff > beta} ({@value #BETA} packets): one packet less; otherwise unchanged.</li>
 *   <li>Slow start: the window doubles every other round trip (it stays fixed in between so that
 *       the two rates can be compared) and slow start ends when {@code Diff > gamma} ({@value #GAMMA}
 *       packet), the window then dropping to what the measured rate supports plus one packet
 *       ({@code cwnd * BaseRTT / RTT + 1}).</li>
 *   <li>Losses get Reno's answer, which Vegas keeps: the window halves, at most once per round
 *       trip; a timeout sets {@code ssthresh} to half the window and the window to one packet.</li>
 * </ul>
 * The window never falls below two packets on an acknowledgement. Pacing is the interface's default.
 */
public final class Vegas implements CongestionControl {
    /** Fewer packets than this queued: grow. */
    public static final int ALPHA = 2;
    /** More packets than this queued: shrink. */
    public static final int BETA = 4;
    /** More packets than this queued ends slow start. */
    public static final int GAMMA = 1;
    private static final int MIN_PACKETS = 2;

    private final int mss;
    private final LossEpisode episode = new LossEpisode();
    private double cwnd;
    private double ssthresh = Double.MAX_VALUE;
    private boolean pacerHeld;

    private long baseRttNanos = Long.MAX_VALUE;
    private long roundMinRttNanos = Long.MAX_VALUE;
    private long sentBytes;
    private long deliveredBytes;
    private long roundEndBytes;
    private boolean doublingRound = true;
    private double lastDiff = Double.NaN;

    /**
     * Creates a controller.
     *
     * @param parameters the connection's MSS
     */
    public Vegas(CongestionParameters parameters) {
        this.mss = parameters.maxPayloadBytes();
        this.cwnd = RenoWindow.initialWindow(mss);
    }

    @Override
    public String name() {
        return CongestionControls.VEGAS;
    }

    @Override
    public void onDelaySample(int delayMicros32, long nowNanos) {
        // Vegas measures round-trip times
    }

    @Override
    public void onPacerHeld(boolean held) {
        pacerHeld = held;
    }

    @Override
    public void onPacketSent(int payloadBytes, boolean retransmission, long bytesInFlightBeforeSend, long nowNanos) {
        if (!retransmission) {
            sentBytes += payloadBytes;
        }
    }

    @Override
    public void onAck(long bytesNewlyAcked, long bytesInFlightBeforeAck, long rttSampleNanos, long nowNanos) {
        if (rttSampleNanos > 0) {
            baseRttNanos = Math.min(baseRttNanos, rttSampleNanos);
            roundMinRttNanos = Math.min(roundMinRttNanos, rttSampleNanos);
        }
        if (bytesNewlyAcked <= 0) {
            return;
        }
        deliveredBytes += bytesNewlyAcked;
        boolean used = CwndValidation.windowUsed(bytesInFlightBeforeAck, cwnd, mss, pacerHeld);
        if (inSlowStart() && doublingRound && used && !episode.inRecovery(nowNanos)) {
            cwnd += bytesNewlyAcked;
        }
        if (deliveredBytes < roundEndBytes) {
            return;
        }
        roundEndBytes = sentBytes;
        if (roundMinRttNanos != Long.MAX_VALUE && !episode.inRecovery(nowNanos)) {
            endRound(used);
        }
        roundMinRttNanos = Long.MAX_VALUE;
    }

    private void endRound(boolean used) {
        double packets = cwnd / mss;
        double rtt = roundMinRttNanos;
        lastDiff = packets * (rtt - baseRttNanos) / rtt;
        if (inSlowStart()) {
            if (lastDiff > GAMMA) {
                cwnd = Math.min(cwnd, (packets * baseRttNanos / rtt + 1) * mss);
                ssthresh = cwnd;
            }
            doublingRound = !doublingRound;
        } else if (lastDiff < ALPHA) {
            if (used) {
                cwnd += mss;
            }
        } else if (lastDiff > BETA) {
            cwnd -= mss;
        }
        cwnd = Math.max(cwnd, (double) MIN_PACKETS * mss);
    }

    @Override
    public boolean onLoss(long nowNanos, long smoothedRttNanos) {
        if (!episode.tryBegin(nowNanos, smoothedRttNanos)) {
            return false;
        }
        cwnd = Math.max(cwnd / 2, (double) MIN_PACKETS * mss);
        ssthresh = cwnd;
        return true;
    }

    @Override
    public void onTimeout(long nowNanos) {
        ssthresh = Math.max(cwnd / 2, (double) MIN_PACKETS * mss);
        cwnd = mss;
        doublingRound = true;
        episode.timedOut(nowNanos);
    }

    @Override
    public long cwndBytes() {
        return (long) cwnd;
    }

    @Override
    public boolean inSlowStart() {
        return cwnd < ssthresh;
    }

    /** Diff of the last round that ended, in packets ({@code NaN} before the first). */
    public double lastDiffPackets() {
        return lastDiff;
    }

    /** BaseRTT, the smallest RTT seen, or {@link Long#MAX_VALUE} before the first sample. */
    public long baseRttNanos() {
        return baseRttNanos;
    }
}
