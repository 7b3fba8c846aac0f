package io.ferry.transport.udt.proto.cc;

import io.ferry.transport.ledbat.cc.CongestionControl;
import io.ferry.transport.ledbat.cc.CongestionParameters;

/**
 * Ferry's delay-based rate control ({@link DelayRateControl}), registered as {@code ferry}: the sending
 * rate follows the queuing delay as FAST TCP's does, and random loss does not cut it. This adapter
 * feeds it what the connection reports (packets sent and resent, packets reported lost, packets
 * acknowledged, the smoothed RTT) once per ACK interval, 10 ms, and hands back its rate to pace at
 * and its window of three round trips of that rate.
 *
 * <p>It was written for barchart-udt, reading UDT4's performance monitor every 10 ms; the counts here
 * are the same quantities taken from the connection's events, so its behaviour and its tests carry
 * over unchanged.
 */
public final class FerryRateControl implements CongestionControl, UdtRateFeedback {
    /** The name under which {@code CongestionControls} knows it. */
    public static final String NAME = "ferry";
    private static final long TICK_NANOS = 10_000_000L;

    private final DelayRateControl control;
    private final int payloadBytes;
    private long sent;
    private long lost;
    private long ackedPackets;
    private long acks;
    private double rttMs = RttWarmUp.UDT_INITIAL_RTT_MS;
    private long lastTickNanos = Long.MIN_VALUE;
    private double windowPackets = Double.POSITIVE_INFINITY;

    /** A control without a rate ceiling. */
    public FerryRateControl(CongestionParameters parameters) {
        this(parameters, -1);
    }

    /**
     * @param maxBytesPerSecond the ceiling of the rate, or -1 for none
     */
    public FerryRateControl(CongestionParameters parameters, long maxBytesPerSecond) {
        this.payloadBytes = parameters.maxPayloadBytes();
        this.control = new DelayRateControl(payloadBytes + 44, maxBytesPerSecond);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void onDelaySample(int delayMicros32, long nowNanos) {
    }

    @Override
    public void onPacketSent(int payloadBytes, boolean retransmission, long bytesInFlightBeforeSend, long nowNanos) {
        if (payloadBytes > 0) {
            sent++;
        }
        tick(nowNanos);
    }

    @Override
    public void onAck(long bytesNewlyAcked, long bytesInFlightBeforeAck, long rttSampleNanos, long nowNanos) {
        acks++;
        ackedPackets += (bytesNewlyAcked + payloadBytes - 1) / payloadBytes;
        if (rttSampleNanos > 0) {
            rttMs = rttSampleNanos / 1e6;
        }
        control.inFlight(Math.max(0, bytesInFlightBeforeAck - bytesNewlyAcked) / payloadBytes);
        tick(nowNanos);
    }

    private void tick(long nowNanos) {
        if (lastTickNanos != Long.MIN_VALUE && nowNanos - lastTickNanos < TICK_NANOS) {
            return;
        }
        lastTickNanos = nowNanos;
        control.onSample(nowNanos, rttMs, sent, lost, ackedPackets, acks);
        windowPackets = control.windowPackets(rttMs);
    }

    @Override
    public void onLossReport(long firstLost, long lostCount, long sentUpTo) {
        lost += lostCount;
    }

    @Override
    public boolean onLoss(long nowNanos, long smoothedRttNanos) {
        lost++;
        return false;
    }

    @Override
    public void onTimeout(long nowNanos) {
    }

    @Override
    public void onPeerRates(int arrivalPacketsPerSecond, int capacityPacketsPerSecond) {
        control.peerArrivalRate(Math.max(0, arrivalPacketsPerSecond));
    }

    @Override
    public void setMaxWindowPackets(int packets) {
    }

    /** Changes the ceiling of the rate (bytes per second, -1 for none). */
    public void ceiling(long maxBytesPerSecond) {
        control.ceiling(maxBytesPerSecond);
    }

    @Override
    public long cwndBytes() {
        return Double.isInfinite(windowPackets) ? Long.MAX_VALUE / 4 : (long) (windowPackets * payloadBytes);
    }

    @Override
    public boolean inSlowStart() {
        return control.inStartup();
    }

    @Override
    public long pacingRateBytesPerSecond(long smoothedRttNanos) {
        return control.bytesPerSecond();
    }

    @Override
    public String toString() {
        return control.toString();
    }
}
