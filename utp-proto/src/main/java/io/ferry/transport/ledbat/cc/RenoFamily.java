package io.ferry.transport.ledbat.cc;

/**
 * What the window-based loss controllers ({@link NewReno}, {@link HighSpeed}, {@link WestwoodPlus},
 * {@link Cubic}) share, so that each leaf says only how its window grows on an acknowledgement and
 * shrinks on a loss or a timeout: RFC 5681's window with RFC 3465's byte counting ({@link RenoWindow}),
 * one reduction per loss episode ({@link LossEpisode}), growth only while the window is used (RFC 7661,
 * {@link CwndValidation}), the flight (RFC 5681's FlightSize) and a smoothed RTT of their own.
 */
abstract class RenoFamily implements CongestionControl {

    final RenoWindow window;
    final int mss;
    final LossEpisode episode = new LossEpisode();
    private boolean pacerHeld;
    private long flightSize;
    private long smoothedRttNanos = -1;

    RenoFamily(CongestionParameters parameters) {
        this.mss = parameters.maxPayloadBytes();
        this.window = new RenoWindow(mss);
    }

    @Override
    public final void onDelaySample(int delayMicros32, long nowNanos) {
        // loss-based
    }

    @Override
    public final void onPacerHeld(boolean held) {
        pacerHeld = held;
    }

    @Override
    public final void onPacketSent(int payloadBytes, boolean retransmission, long bytesInFlightBeforeSend, long nowNanos) {
        flightSize = bytesInFlightBeforeSend + payloadBytes;
    }

    /** The flight after an acknowledgement of {@code bytesNewlyAcked} (the next send updates it again). */
    final void ackedFromFlight(long bytesNewlyAcked, long bytesInFlightBeforeAck) {
        flightSize = Math.max(0, bytesInFlightBeforeAck - bytesNewlyAcked);
    }

    /** Whether an acknowledgement may grow the window: it acknowledged bytes, outside a recovery, of a window in use. */
    final boolean mayGrow(long bytesNewlyAcked, long bytesInFlightBeforeAck, long nowNanos) {
        return bytesNewlyAcked > 0 && !episode.inRecovery(nowNanos)
                && CwndValidation.windowUsed(bytesInFlightBeforeAck, window.cwnd, mss, pacerHeld);
    }

    /** Folds an RTT sample (ignored if not positive) into the smoothed RTT, RFC 6298's 7/8 weighting. */
    final void noteRtt(long rttSampleNanos) {
        if (rttSampleNanos > 0) {
            smoothedRttNanos = smoothedRttNanos < 0 ? rttSampleNanos : (7 * smoothedRttNanos + rttSampleNanos) / 8;
        }
    }

    /** The smoothed RTT, or -1 before the first sample. */
    final long smoothedRttNanos() {
        return smoothedRttNanos;
    }

    /** RFC 5681's {@code FlightSize / 2}, with the window standing in before any flight was seen. */
    final double halfFlight() {
        return (flightSize > 0 ? flightSize : window.cwnd) / 2.0;
    }

    @Override
    public final long cwndBytes() {
        return (long) window.cwnd;
    }

    @Override
    public final boolean inSlowStart() {
        return window.inSlowStart();
    }

    /** The slow-start threshold in bytes ({@link Long#MAX_VALUE} before the first loss). */
    public final long ssthreshBytes() {
        return window.ssthresh >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) window.ssthresh;
    }
}
