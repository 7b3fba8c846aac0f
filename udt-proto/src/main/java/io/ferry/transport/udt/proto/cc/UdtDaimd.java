package io.ferry.transport.udt.proto.cc;

import io.ferry.transport.ledbat.cc.CongestionControl;
import io.ferry.transport.ledbat.cc.CongestionParameters;

import java.util.SplittableRandom;

/**
 * UDT's own rate control, DAIMD with bandwidth estimation (Gu and Grossman, "UDT: UDP-based data
 * transfer for high-speed wide area networks", 2007; draft-gg-udt-03 section 6.7), as UDT4 4.11 runs
 * it, registered as {@code udt}.
 *
 * <ul>
 *   <li>Slow start: the window starts at 16 packets and grows by the packets acknowledged each rate
 *       control interval (10 ms) until it passes the flow window or the first loss; the sending period
 *       is then the receiver's arrival rate's inverse.</li>
 *   <li>Increase, once per interval without loss: {@code inc = max(10^ceil(log10(B * MSS * 8)) * 1.5e-6 / MSS, 0.01)}
 *       packets, B the estimated capacity less the current rate (at most a ninth of the capacity after a
 *       decrease); the period becomes {@code period * SYN / (period * inc + SYN)}.</li>
 *   <li>Decrease: the first loss report of an epoch (its first loss beyond the last decrease) lengthens
 *       the period by 1/8; later reports of the epoch by 1/8 again every {@code decRandom}-th report, at
 *       most four more times (0.875^5 ≈ 0.51), decRandom drawn from the average reports per epoch.</li>
 *   <li>Window after slow start: {@code arrival rate * (RTT + SYN) + 16} packets.</li>
 * </ul>
 *
 * <p>The receiver's rates are smoothed here as UDT4 smooths them (7/8 of the old value), from the first
 * sample rather than from zero; slow start ends at the latest arrival rate, not the smoothed one, which
 * lags a window that doubles every round trip by a factor of four; and the losses of the overshoot
 * that ended slow start belong to that event, not to five further cuts (UDT4 halves its measured rate
 * right after leaving slow start, its average of reports per epoch being zero). UDT4 leaves slow start through a timeout or a loss without an arrival rate with the period set to
 * {@code window / (RTT + SYN)}, a rate where a period belongs; this one takes {@code (RTT + SYN) / window}.
 * Slow start is paced at twice the window per round trip instead of UDT4's one microsecond between
 * packets, so a window does not leave as one burst. The randomization is seeded from the sequence
 * number, as UDT4 seeds {@code rand()}, so runs repeat.
 */
public final class UdtDaimd implements CongestionControl, UdtRateFeedback {
    /** The name under which {@code CongestionControls} knows it. */
    public static final String NAME = "udt";
    /** The rate-control interval, UDT's SYN, in microseconds. */
    static final double SYN_MICROS = 10_000;
    private static final long SYN_NANOS = 10_000_000L;
    private static final double MIN_INCREASE = 0.01;

    private final int payloadBytes;
    private final int packetBytes;
    private double windowPackets = 16;
    private double periodMicros = 1;
    private boolean slowStart = true;
    private boolean lossThisInterval;
    private long lastRateControlNanos = Long.MIN_VALUE;
    private long ackedSinceControl;
    private long lastDecreaseSeq = Long.MIN_VALUE;
    private double lastDecreasePeriod = 1;
    private int reportsThisEpoch;
    private int averageReports;
    private int decreaseRandom = 1;
    private int decreasesThisEpoch;
    private int arrivalRate;
    private int latestArrivalRate;
    private int capacity;
    private double rttMicros = 100_000;
    private int maxWindow = 25_600;

    /** Creates a controller for packets of {@code parameters.maxPayloadBytes()} payload. */
    public UdtDaimd(CongestionParameters parameters) {
        this.payloadBytes = parameters.maxPayloadBytes();
        this.packetBytes = payloadBytes + 44;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void onDelaySample(int delayMicros32, long nowNanos) {
    }

    @Override
    public void onAck(long bytesNewlyAcked, long bytesInFlightBeforeAck, long rttSampleNanos, long nowNanos) {
        ackedSinceControl += (bytesNewlyAcked + payloadBytes - 1) / payloadBytes;
        if (rttSampleNanos > 0) {
            rttMicros = rttSampleNanos / 1000.0;
        }
        if (lastRateControlNanos != Long.MIN_VALUE && nowNanos - lastRateControlNanos < SYN_NANOS) {
            return;
        }
        lastRateControlNanos = nowNanos;
        if (slowStart) {
            windowPackets += ackedSinceControl;
            ackedSinceControl = 0;
            if (windowPackets > maxWindow) {
                leaveSlowStart();
            }
            return;
        }
        ackedSinceControl = 0;
        windowPackets = arrivalRate / 1e6 * (rttMicros + SYN_MICROS) + 16;
        if (lossThisInterval) {
            lossThisInterval = false;
            return;
        }
        double spare = capacity - 1e6 / periodMicros;
        if (periodMicros > lastDecreasePeriod && capacity / 9.0 < spare) {
            spare = capacity / 9.0;
        }
        double increase = spare <= 0 ? MIN_INCREASE
                : Math.max(MIN_INCREASE, Math.pow(10, Math.ceil(Math.log10(spare * packetBytes * 8))) * 1.5e-6 / packetBytes);
        periodMicros = periodMicros * SYN_MICROS / (periodMicros * increase + SYN_MICROS);
    }

    private void leaveSlowStart() {
        slowStart = false;
        periodMicros = latestArrivalRate > 0 ? 1e6 / latestArrivalRate : (rttMicros + SYN_MICROS) / windowPackets;
    }

    @Override
    public void onLossReport(long firstLost, long lostCount, long sentUpTo) {
        if (slowStart) {
            leaveSlowStart();
            if (latestArrivalRate > 0) {
                // the overshoot's other losses were sent before this report: they end the same epoch
                lastDecreaseSeq = sentUpTo;
                lastDecreasePeriod = periodMicros;
                decreasesThisEpoch = 5;
                return;
            }
        }
        lossThisInterval = true;
        if (firstLost > lastDecreaseSeq) {
            lastDecreasePeriod = periodMicros;
            periodMicros = Math.ceil(periodMicros * 1.125);
            averageReports = (int) Math.ceil(averageReports * 0.875 + reportsThisEpoch * 0.125);
            reportsThisEpoch = 1;
            decreasesThisEpoch = 1;
            lastDecreaseSeq = sentUpTo;
            decreaseRandom = Math.max(1, (int) Math.ceil(averageReports * new SplittableRandom(sentUpTo).nextDouble()));
        } else if (decreasesThisEpoch++ < 5 && ++reportsThisEpoch % decreaseRandom == 0) {
            periodMicros = Math.ceil(periodMicros * 1.125);
            lastDecreaseSeq = sentUpTo;
        }
    }

    @Override
    public boolean onLoss(long nowNanos, long smoothedRttNanos) {
        onLossReport(Long.MAX_VALUE, 1, Long.MAX_VALUE - 1);
        return true;
    }

    @Override
    public void onTimeout(long nowNanos) {
        if (slowStart) {
            leaveSlowStart();
        }
    }

    @Override
    public void onPeerRates(int arrivalPacketsPerSecond, int capacityPacketsPerSecond) {
        if (arrivalPacketsPerSecond > 0) {
            latestArrivalRate = arrivalPacketsPerSecond;
            arrivalRate = arrivalRate == 0 ? arrivalPacketsPerSecond : (int) ((arrivalRate * 7L + arrivalPacketsPerSecond) >> 3);
        }
        if (capacityPacketsPerSecond > 0) {
            capacity = capacity == 0 ? capacityPacketsPerSecond : (int) ((capacity * 7L + capacityPacketsPerSecond) >> 3);
        }
    }

    @Override
    public void setMaxWindowPackets(int packets) {
        maxWindow = Math.max(2, packets);
    }

    @Override
    public long cwndBytes() {
        return (long) Math.min(windowPackets, maxWindow) * payloadBytes;
    }

    @Override
    public boolean inSlowStart() {
        return slowStart;
    }

    @Override
    public long pacingRateBytesPerSecond(long smoothedRttNanos) {
        if (slowStart) {
            return smoothedRttNanos <= 0 ? Long.MAX_VALUE : Math.max(1, (long) (2.0 * cwndBytes() * 1e9 / smoothedRttNanos));
        }
        double rate = payloadBytes * 1e6 / periodMicros;
        return rate >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(1, (long) rate);
    }

    /** The inter-packet period in microseconds, for tests and statistics. */
    public double periodMicros() {
        return periodMicros;
    }
}
