package io.ferry.transport.ledbat.cc;

/**
 * A congestion "controller" with a constant window and no pacing. It ignores delay, loss and
 * timeouts; useful for tests and for paths whose capacity the caller controls.
 */
public final class FixedWindow implements CongestionControl {
    /** Window of the registered {@value CongestionControls#FIXED_WINDOW} controller, in packets. */
    public static final int DEFAULT_PACKETS = 64;

    private final long cwnd;

    /**
     * Creates a controller with a window of {@code packets} full packets.
     *
     * @param parameters the connection's parameters
     * @param packets    the window in packets, at least 1
     */
    public FixedWindow(CongestionParameters parameters, int packets) {
        if (packets < 1) {
            throw new IllegalArgumentException("packets must be >= 1, was " + packets);
        }
        this.cwnd = (long) packets * parameters.maxPayloadBytes();
    }

    @Override
    public String name() {
        return CongestionControls.FIXED_WINDOW;
    }

    @Override
    public void onDelaySample(int delayMicros32, long nowNanos) {
        // a fixed window does not react to delay
    }

    @Override
    public void onAck(long bytesNewlyAcked, long bytesInFlightBeforeAck, long rttSampleNanos, long nowNanos) {
        // a fixed window does not grow
    }

    @Override
    public boolean onLoss(long nowNanos, long smoothedRttNanos) {
        return false;
    }

    @Override
    public void onTimeout(long nowNanos) {
        // a fixed window does not collapse
    }

    @Override
    public long cwndBytes() {
        return cwnd;
    }

    @Override
    public long pacingRateBytesPerSecond(long smoothedRttNanos) {
        return Long.MAX_VALUE;
    }
}
