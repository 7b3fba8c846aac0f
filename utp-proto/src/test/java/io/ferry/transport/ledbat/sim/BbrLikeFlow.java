package io.ferry.transport.ledbat.sim;

/**
 * A model-based competitor with the parts of BBR v1 (Cardwell et al., "BBR: Congestion-Based
 * Congestion Control", ACM Queue 14(5), 2016; draft-cardwell-iccrg-bbr-congestion-control-00) that
 * decide how much queue it keeps: the bottleneck bandwidth as the maximum delivery rate of the last
 * ten round trips, the minimum RTT of the last ten seconds, STARTUP at a gain of 2/ln 2 until the
 * bandwidth stops growing by a quarter for three rounds, DRAIN, PROBE_BW cycling the pacing gain
 * through 1.25, 0.75 and six times 1 per minimum RTT, at most {@code 2 * bandwidth * min_rtt} in
 * flight, and PROBE_RTT (four packets for 200 ms) when the minimum RTT is ten seconds old. Loss does
 * not change its rate. Against a competitor it holds a standing queue of about one base RTT.
 */
public final class BbrLikeFlow extends CompetingFlow {
    private static final double HIGH_GAIN = 2 / Math.log(2);
    private static final double[] CYCLE = {1.25, 0.75, 1, 1, 1, 1, 1, 1};
    private static final long MIN_RTT_WINDOW_NANOS = 10_000_000_000L;
    private static final long PROBE_RTT_NANOS = 200_000_000L;
    private static final int BW_ROUNDS = 10;

    private enum Mode { STARTUP, DRAIN, PROBE_BW, PROBE_RTT }

    private final double[] roundMaxBw = new double[BW_ROUNDS];
    private Mode mode = Mode.STARTUP;
    private long minRttNanos = Long.MAX_VALUE;
    private long minRttStampNanos;
    private long round;
    private long roundEndsAtSend = Long.MIN_VALUE;
    private double fullBw;
    private int fullBwRounds;
    private int cycleIndex;
    private long cycleStartNanos;
    private long probeRttDoneNanos;

    public BbrLikeFlow(EventQueue events, Link link, long ackDelayNanos) {
        super(events, link, ackDelayNanos);
    }

    /** Bytes per second: the maximum delivery rate of the last ten rounds. */
    public double bottleneckBandwidth() {
        double max = 0;
        for (double b : roundMaxBw) {
            max = Math.max(max, b);
        }
        return max;
    }

    @Override
    protected double windowPackets() {
        if (mode == Mode.PROBE_RTT) {
            return 4;
        }
        double bw = bottleneckBandwidth();
        if (bw == 0 || minRttNanos == Long.MAX_VALUE) {
            return 10;
        }
        double gain = mode == Mode.PROBE_BW ? 2 : HIGH_GAIN;
        return Math.max(4, gain * bw * minRttNanos / 1e9 / PACKET);
    }

    @Override
    protected long pacingBytesPerSecond() {
        double bw = bottleneckBandwidth();
        if (bw == 0) {
            return Long.MAX_VALUE;
        }
        double gain = switch (mode) {
            case STARTUP -> HIGH_GAIN;
            case DRAIN -> 1 / HIGH_GAIN;
            case PROBE_BW -> CYCLE[cycleIndex];
            case PROBE_RTT -> 1;
        };
        return Math.max(1, (long) (gain * bw));
    }

    @Override
    protected void onAck(long sentAt, long deliveredAtSend, long deliveredTimeAtSend) {
        long now = events.now();
        long rtt = now - sentAt;
        if (rtt <= minRttNanos || now - minRttStampNanos > MIN_RTT_WINDOW_NANOS) {
            if (rtt > minRttNanos && mode != Mode.PROBE_RTT) {
                // the estimate expired: drain to four packets to measure it afresh
                mode = Mode.PROBE_RTT;
                probeRttDoneNanos = now + PROBE_RTT_NANOS;
            }
            minRttNanos = Math.min(minRttNanos, rtt);
            if (mode == Mode.PROBE_RTT) {
                minRttNanos = rtt;
            }
            minRttStampNanos = now;
        }
        long interval = now - deliveredTimeAtSend;
        if (interval > 0) {
            double rate = (deliveredBytes() - deliveredAtSend) * 1e9 / interval;
            int slot = (int) (round % BW_ROUNDS);
            roundMaxBw[slot] = Math.max(roundMaxBw[slot], rate);
        }
        if (sentAt >= roundEndsAtSend) {
            round++;
            roundMaxBw[(int) (round % BW_ROUNDS)] = 0;
            roundEndsAtSend = now;
            onRoundStart();
        }
        switch (mode) {
            case DRAIN -> {
                if (inFlightPackets() <= bottleneckBandwidth() * minRttNanos / 1e9 / PACKET) {
                    enterProbeBw(now);
                }
            }
            case PROBE_BW -> {
                if (now - cycleStartNanos >= minRttNanos) {
                    cycleIndex = (cycleIndex + 1) % CYCLE.length;
                    cycleStartNanos = now;
                }
            }
            case PROBE_RTT -> {
                if (now >= probeRttDoneNanos) {
                    minRttStampNanos = now;
                    enterProbeBw(now);
                }
            }
            default -> {
            }
        }
    }

    private void onRoundStart() {
        if (mode != Mode.STARTUP) {
            return;
        }
        double bw = bottleneckBandwidth();
        if (bw >= 1.25 * fullBw) {
            fullBw = bw;
            fullBwRounds = 0;
        } else if (++fullBwRounds >= 3) {
            mode = Mode.DRAIN;
        }
    }

    private void enterProbeBw(long now) {
        mode = Mode.PROBE_BW;
        cycleIndex = 2;
        cycleStartNanos = now;
    }

    @Override
    protected void onLoss() {
        // BBR v1 keeps its model; the loss is simply no longer in flight
    }
}
