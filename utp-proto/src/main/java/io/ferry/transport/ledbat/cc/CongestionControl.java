package io.ferry.transport.ledbat.cc;

/**
 * A sender-side congestion controller: decides how many payload bytes may be unacknowledged in the
 * network and how fast they may be sent.
 *
 * <p>Implementations are driven by one connection on one thread and are given the time with every
 * event; they never read a clock themselves. Create them through {@link CongestionControls}.
 */
public interface CongestionControl {

    /** Returns the name this controller is registered under. */
    String name();

    /**
     * Reports a one-way delay sample for the sending direction: the peer's
     * {@code timestamp_difference_microseconds}. The value is an unsigned 32-bit quantity that includes
     * the (unknown, possibly drifting) offset between the two clocks, so only differences between
     * samples are meaningful.
     *
     * @param delayMicros32 the raw 32-bit sample
     * @param nowNanos      the current time
     */
    void onDelaySample(int delayMicros32, long nowNanos);

    /**
     * Reports newly acknowledged payload (cumulatively or selectively).
     *
     * @param bytesNewlyAcked        payload bytes acknowledged for the first time by this packet
     * @param bytesInFlightBeforeAck payload bytes that were in flight just before this packet arrived
     * @param rttSampleNanos         a round-trip sample taken from this packet, or {@code -1}
     * @param nowNanos               the current time
     */
    void onAck(long bytesNewlyAcked, long bytesInFlightBeforeAck, long rttSampleNanos, long nowNanos);

    /**
     * Reports a packet put on the wire, before it is counted in flight. Controllers that sample the
     * delivery rate (BBR) remember per packet what had been delivered when it left; window-based
     * controllers need not override it. Packets without payload (SYN, FIN, zero-window probes) are
     * reported too, with {@code payloadBytes} 0.
     *
     * @param payloadBytes            the packet's payload
     * @param retransmission          whether the payload was sent before
     * @param bytesInFlightBeforeSend payload bytes in flight just before this packet
     * @param nowNanos                the current time
     */
    default void onPacketSent(int payloadBytes, boolean retransmission, long bytesInFlightBeforeSend, long nowNanos) {
    }

    /**
     * Tells the controller, before {@link #onAck}, whether the connection's last attempt to send
     * stopped at the pacer with data waiting. The flight is then short of the window by what the pacer
     * holds back (a batch of acknowledgements read at once frees more than its burst), not because the
     * application has nothing to send (RFC 7661's application-limited sender); a controller that grows
     * its window only as far as the flight may count the window as used.
     *
     * @param held whether the pacer held data back
     */
    default void onPacerHeld(boolean held) {
    }

    /**
     * Reports a packet detected lost by duplicate or selective ACKs. Implementations reduce the window
     * at most once per round trip.
     *
     * @param nowNanos          the current time
     * @param smoothedRttNanos  the connection's smoothed RTT, or {@code -1} before the first sample
     * @return whether the window was reduced by this event
     */
    boolean onLoss(long nowNanos, long smoothedRttNanos);

    /**
     * Reports a retransmission timeout.
     *
     * @param nowNanos the current time
     */
    void onTimeout(long nowNanos);

    /** Returns the congestion window in payload bytes. */
    long cwndBytes();

    /** Returns whether the controller is in a slow-start phase (pacing then allows more headroom). */
    default boolean inSlowStart() {
        return false;
    }

    /**
     * Returns the rate at which the window should be spread over one round trip, in bytes per second;
     * {@link Long#MAX_VALUE} means "do not pace".
     *
     * @param smoothedRttNanos the connection's smoothed RTT, or {@code -1} before the first sample
     */
    default long pacingRateBytesPerSecond(long smoothedRttNanos) {
        if (smoothedRttNanos <= 0) {
            return Long.MAX_VALUE;
        }
        double gain = inSlowStart() ? 2.0 : 1.25;
        double rate = cwndBytes() * gain * 1e9 / smoothedRttNanos;
        return rate >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(1L, (long) rate);
    }

    /** Returns the current queuing-delay estimate in microseconds, or {@code -1} if unknown. */
    default long queuingDelayMicros() {
        return -1;
    }

    /**
     * Returns the base-delay estimate in microseconds, or {@code -1} if unknown. It includes the
     * offset between the two hosts' clocks and is meaningful only relative to other samples.
     */
    default long baseDelayMicros() {
        return -1;
    }
}
