package io.ferry.transport.ledbat.cc;

import java.util.SplittableRandom;

/**
 * BBR version 1, as draft-cardwell-iccrg-bbr-congestion-control-00 (2017) describes it: a model-based
 * controller that estimates the bottleneck bandwidth ({@code BtlBw}, the largest delivery rate over the
 * last {@value #BTLBW_FILTER_ROUNDS} round trips, see {@link DeliveryRateSampler}) and the round-trip
 * propagation time ({@code RTprop}, the smallest RTT over the last {@link #RTPROP_FILTER_NANOS}), paces
 * at a gain times {@code BtlBw} and caps the data in flight at a gain times their product.
 *
 * <ul>
 *   <li><b>Startup</b>: pacing and cwnd gain {@code 2/ln 2} (about 2.89), doubling the rate per round
 *       trip, until {@code BtlBw} has grown by less than 25 % in three rounds (the pipe is full).</li>
 *   <li><b>Drain</b>: pacing gain {@code ln 2 / 2} until the flight is at most one
 *       bandwidth-delay product, removing the queue Startup built.</li>
 *   <li><b>ProbeBW</b>: pacing gain cycling through {@code 5/4, 3/4, 1, 1, 1, 1, 1, 1}, one phase per
 *       {@code RTprop} (the 5/4 phase longer until it has put {@code 1.25 * BDP} in flight or saw a loss,
 *       the 3/4 phase shorter once the flight is down to one BDP), starting at a random phase other than
 *       3/4; cwnd gain 2.</li>
 *   <li><b>ProbeRTT</b>: when {@code RTprop} has not been lowered or confirmed for ten seconds, the
 *       window drops to {@value #MIN_PIPE_PACKETS} packets for at least {@link #PROBE_RTT_DURATION_NANOS}
 *       and a round trip, so that the queue drains and {@code RTprop} is measured again; then ProbeBW
 *       (or Startup if the pipe was never full).</li>
 *   <li>The window follows the target {@code cwnd_gain * BtlBw * RTprop + 3 * send_quantum} by adding
 *       the delivered bytes; it is at least {@value #MIN_PIPE_PACKETS} packets.</li>
 *   <li>Loss: on the first loss of an episode the window becomes the flight plus one packet and is held
 *       by packet conservation for a round trip; each further loss takes a packet off; once a round
 *       trip passes without loss the window returns to at least what it was. A timeout sets the window
 *       to one packet, from which it regrows by the delivered bytes.</li>
 *   <li>The pacing rate is {@code pacing_gain * BtlBw}; before the first sample it is
 *       {@code 2/ln 2 * initial window / RTT} (RTT 1 ms before the first sample); before the pipe is full
 *       it never decreases.</li>
 * </ul>
 *
 * <p>The uTP core reports no application-limited state, so an acknowledgement that finds the flight
 * short of the window by more than a packet while the pacer held nothing back marks the samples of the
 * next round trip as application-limited (such samples only raise {@code BtlBw}). The initial window is
 * {@value #INITIAL_CWND_PACKETS} packets (RFC 6928, as in Linux's BBR).
 */
public final class Bbr implements CongestionControl {
    /** The states of BBR's state machine. */
    public enum State {
        /** Doubling the sending rate per round trip to find the bottleneck bandwidth. */
        STARTUP,
        /** Draining the queue Startup built. */
        DRAIN,
        /** Cycling the pacing gain around the estimated bandwidth. */
        PROBE_BW,
        /** Holding the flight at a few packets to measure the propagation delay. */
        PROBE_RTT
    }

    /** {@code 2 / ln 2}: the gain that doubles the delivery rate per round trip. */
    public static final double HIGH_GAIN = 2 / Math.log(2);
    /** Round trips over which the bandwidth filter keeps the maximum. */
    public static final int BTLBW_FILTER_ROUNDS = 10;
    /** How long an {@code RTprop} estimate holds without being lowered or confirmed. */
    public static final long RTPROP_FILTER_NANOS = 10_000_000_000L;
    /** How long ProbeRTT holds the flight at {@link #MIN_PIPE_PACKETS} at least. */
    public static final long PROBE_RTT_DURATION_NANOS = 200_000_000L;
    /** The smallest window, in packets. */
    public static final int MIN_PIPE_PACKETS = 4;
    /** The initial window, in packets. */
    public static final int INITIAL_CWND_PACKETS = 10;
    /** ProbeBW's pacing gains, one per phase. */
    static final double[] PACING_GAIN_CYCLE = {1.25, 0.75, 1, 1, 1, 1, 1, 1};

    private static final long NONE = Long.MIN_VALUE;

    private final int mss;
    private final DeliveryRateSampler sampler = new DeliveryRateSampler();
    private final WindowedMaxFilter btlBwFilter = new WindowedMaxFilter(BTLBW_FILTER_ROUNDS);

    private State state;
    private double pacingGain;
    private double cwndGain;
    private double btlBw;
    private double pacingRate;
    private double cwnd;
    private double priorCwnd;
    private long rtProp = -1;
    private long rtPropStamp;
    private boolean rtPropExpired;

    private long roundCount;
    private long nextRoundDelivered;
    private boolean roundStart;

    private boolean filledPipe;
    private double fullBw;
    private int fullBwCount;

    private int cycleIndex;
    private long cycleStamp;

    private long probeRttDoneStamp = NONE;
    private boolean probeRttRoundDone;
    private boolean idleRestart;

    private boolean pacerHeld;
    private long flight;
    private boolean inRecovery;
    private boolean packetConservation;
    private long recoveryRound;
    private int lossesThisRound;
    private int lossesSinceAck;
    private long probeRttEntries;

    /**
     * Creates a controller.
     *
     * @param parameters the connection's MSS
     */
    public Bbr(CongestionParameters parameters) {
        this.mss = parameters.maxPayloadBytes();
        this.cwnd = (double) INITIAL_CWND_PACKETS * mss;
        enterStartup();
    }

    @Override
    public String name() {
        return CongestionControls.BBR;
    }

    @Override
    public void onDelaySample(int delayMicros32, long nowNanos) {
        // BBR measures round-trip times and delivery rates
    }

    @Override
    public void onPacerHeld(boolean held) {
        pacerHeld = held;
    }

    @Override
    public void onPacketSent(int payloadBytes, boolean retransmission, long bytesInFlightBeforeSend, long nowNanos) {
        if (bytesInFlightBeforeSend == 0 && payloadBytes > 0 && rtProp >= 0 && sampler.delivered() > 0) {
            // restarting from idle: pace at the estimated rate rather than at a gain below or above it
            idleRestart = true;
            if (state == State.PROBE_BW) {
                setPacingRate(1.0);
            }
        }
        sampler.onSent(payloadBytes, retransmission, bytesInFlightBeforeSend, nowNanos);
    }

    @Override
    public void onAck(long bytesNewlyAcked, long bytesInFlightBeforeAck, long rttSampleNanos, long nowNanos) {
        if (bytesNewlyAcked <= 0) {
            return;
        }
        if (!pacerHeld && bytesInFlightBeforeAck + mss < cwnd) {
            sampler.markAppLimited(bytesInFlightBeforeAck);
        }
        flight = Math.max(0, bytesInFlightBeforeAck - bytesNewlyAcked);
        boolean sampled = sampler.onAck(bytesNewlyAcked, nowNanos);
        updateRound(sampled);
        updateBtlBw(sampled);
        if (state == State.PROBE_BW && isNextCyclePhase(bytesInFlightBeforeAck, nowNanos)) {
            advanceCyclePhase(nowNanos);
        }
        checkFullPipe(sampled);
        checkDrain(nowNanos);
        updateRtProp(rttSampleNanos, nowNanos);
        checkProbeRtt(nowNanos);
        updateRecovery();
        lossesSinceAck = 0;
        setPacingRate(pacingGain);
        setCwnd(bytesNewlyAcked);
    }

    private void updateRound(boolean sampled) {
        roundStart = false;
        if (sampled && sampler.priorDelivered() >= nextRoundDelivered) {
            nextRoundDelivered = sampler.delivered();
            roundCount++;
            roundStart = true;
        }
    }

    private void updateBtlBw(boolean sampled) {
        if (sampled && (rtProp < 0 || sampler.intervalNanos() >= rtProp)) {
            double rate = sampler.rateBytesPerSecond();
            if (rate >= btlBw || !sampler.isAppLimited()) {
                btlBw = btlBwFilter.update(rate, roundCount);
                return;
            }
        }
        btlBw = btlBwFilter.expire(roundCount);
    }

    private boolean isNextCyclePhase(long priorInflight, long nowNanos) {
        boolean fullLength = nowNanos - cycleStamp > rtProp;
        if (pacingGain == 1) {
            return fullLength;
        }
        if (pacingGain > 1) {
            return fullLength && (lossesSinceAck > 0 || priorInflight >= inflight(pacingGain));
        }
        return fullLength || priorInflight <= inflight(1);
    }

    private void advanceCyclePhase(long nowNanos) {
        cycleStamp = nowNanos;
        cycleIndex = (cycleIndex + 1) % PACING_GAIN_CYCLE.length;
        pacingGain = PACING_GAIN_CYCLE[cycleIndex];
    }

    private void checkFullPipe(boolean sampled) {
        if (filledPipe || !roundStart || !sampled || sampler.isAppLimited()) {
            return;
        }
        if (btlBw >= fullBw * 1.25) {
            fullBw = btlBw;
            fullBwCount = 0;
            return;
        }
        if (++fullBwCount >= 3) {
            filledPipe = true;
        }
    }

    private void checkDrain(long nowNanos) {
        if (state == State.STARTUP && filledPipe) {
            state = State.DRAIN;
            pacingGain = 1 / HIGH_GAIN;
            cwndGain = HIGH_GAIN;
        }
        if (state == State.DRAIN && flight <= inflight(1)) {
            enterProbeBw(nowNanos);
        }
    }

    private void enterStartup() {
        state = State.STARTUP;
        pacingGain = HIGH_GAIN;
        cwndGain = HIGH_GAIN;
    }

    private void enterProbeBw(long nowNanos) {
        state = State.PROBE_BW;
        cwndGain = 2;
        // a random phase other than 3/4 (index 1), drawn from the time so that simulations repeat
        int skip = new SplittableRandom(nowNanos).nextInt(PACING_GAIN_CYCLE.length - 1);
        cycleIndex = PACING_GAIN_CYCLE.length - 1 - skip;
        advanceCyclePhase(nowNanos);
    }

    private void updateRtProp(long rttSampleNanos, long nowNanos) {
        rtPropExpired = rtProp >= 0 && nowNanos - rtPropStamp > RTPROP_FILTER_NANOS;
        if (rttSampleNanos > 0 && (rtProp < 0 || rttSampleNanos <= rtProp || rtPropExpired)) {
            rtProp = rttSampleNanos;
            rtPropStamp = nowNanos;
        }
    }

    private void checkProbeRtt(long nowNanos) {
        if (state != State.PROBE_RTT && rtPropExpired && !idleRestart) {
            state = State.PROBE_RTT;
            pacingGain = 1;
            cwndGain = 1;
            saveCwnd();
            probeRttDoneStamp = NONE;
            probeRttEntries++;
        }
        if (state == State.PROBE_RTT) {
            handleProbeRtt(nowNanos);
        }
        idleRestart = false;
    }

    private void handleProbeRtt(long nowNanos) {
        sampler.markAppLimited(flight);
        if (probeRttDoneStamp == NONE && flight <= (long) MIN_PIPE_PACKETS * mss) {
            probeRttDoneStamp = nowNanos + PROBE_RTT_DURATION_NANOS;
            probeRttRoundDone = false;
            nextRoundDelivered = sampler.delivered();
        } else if (probeRttDoneStamp != NONE) {
            if (roundStart) {
                probeRttRoundDone = true;
            }
            if (probeRttRoundDone && nowNanos > probeRttDoneStamp) {
                rtPropStamp = nowNanos;
                cwnd = Math.max(cwnd, priorCwnd);
                if (filledPipe) {
                    enterProbeBw(nowNanos);
                } else {
                    enterStartup();
                }
            }
        }
    }

    private void updateRecovery() {
        if (!inRecovery || !roundStart) {
            return;
        }
        if (roundCount > recoveryRound + 1) {
            packetConservation = false;
        }
        if (lossesThisRound == 0 && roundCount > recoveryRound + 1) {
            inRecovery = false;
            cwnd = Math.max(cwnd, priorCwnd);
        }
        lossesThisRound = 0;
    }

    private void setPacingRate(double gain) {
        if (btlBw <= 0) {
            return;
        }
        double rate = gain * btlBw;
        if (filledPipe || rate > pacingRate) {
            pacingRate = rate;
        }
    }

    private void setCwnd(long acked) {
        double target = inflight(cwndGain);
        if (packetConservation) {
            cwnd = Math.max(cwnd, flight + acked);
        } else if (filledPipe) {
            cwnd = Math.min(cwnd + acked, target);
        } else if (cwnd < target || sampler.delivered() < (long) INITIAL_CWND_PACKETS * mss) {
            cwnd += acked;
        }
        cwnd = Math.max(cwnd, (double) MIN_PIPE_PACKETS * mss);
        if (state == State.PROBE_RTT) {
            cwnd = Math.min(cwnd, (double) MIN_PIPE_PACKETS * mss);
        }
    }

    /** {@code gain * BtlBw * RTprop + 3 * send_quantum}, or the initial window before an estimate. */
    private double inflight(double gain) {
        if (rtProp < 0 || btlBw <= 0) {
            return (double) INITIAL_CWND_PACKETS * mss;
        }
        return gain * btlBw * rtProp / 1e9 + 3 * sendQuantum();
    }

    /** The draft's send quantum: one packet below 1.2 Mbit/s, two below 24 Mbit/s, else 1 ms of data up to 64 KB. */
    private double sendQuantum() {
        if (pacingRate < 150_000) {
            return mss;
        }
        if (pacingRate < 3_000_000) {
            return 2.0 * mss;
        }
        return Math.min(pacingRate / 1000, 64 * 1024);
    }

    private void saveCwnd() {
        priorCwnd = !inRecovery && state != State.PROBE_RTT ? cwnd : Math.max(priorCwnd, cwnd);
    }

    @Override
    public boolean onLoss(long nowNanos, long smoothedRttNanos) {
        lossesThisRound++;
        lossesSinceAck++;
        if (inRecovery) {
            cwnd = Math.max(cwnd - mss, mss);
            return false;
        }
        saveCwnd();
        inRecovery = true;
        packetConservation = true;
        recoveryRound = roundCount;
        cwnd = Math.max(flight + mss, mss);
        return true;
    }

    @Override
    public void onTimeout(long nowNanos) {
        saveCwnd();
        inRecovery = true;
        packetConservation = false;
        recoveryRound = roundCount;
        lossesThisRound++;
        cwnd = mss;
    }

    @Override
    public long cwndBytes() {
        return (long) cwnd;
    }

    @Override
    public boolean inSlowStart() {
        return state == State.STARTUP;
    }

    @Override
    public long pacingRateBytesPerSecond(long smoothedRttNanos) {
        double rate = pacingRate;
        if (btlBw <= 0) {
            long rtt = smoothedRttNanos > 0 ? smoothedRttNanos : 1_000_000L;
            rate = HIGH_GAIN * INITIAL_CWND_PACKETS * mss * 1e9 / rtt;
            pacingRate = rate;
        }
        return Math.max(1L, (long) rate);
    }

    /** The current state. */
    public State state() {
        return state;
    }

    /** The current pacing gain. */
    public double pacingGain() {
        return pacingGain;
    }

    /** The bottleneck-bandwidth estimate {@code BtlBw}, bytes per second (0 before a sample). */
    public double bottleneckBandwidthBytesPerSecond() {
        return btlBw;
    }

    /** The propagation-delay estimate {@code RTprop}, or -1 before a sample. */
    public long rtPropNanos() {
        return rtProp;
    }

    /** When {@code RTprop} was last lowered or confirmed. */
    long rtPropStampNanos() {
        return rtPropStamp;
    }

    /** Round trips counted so far. */
    public long roundCount() {
        return roundCount;
    }

    /** How often ProbeRTT was entered. */
    public long probeRttEntries() {
        return probeRttEntries;
    }
}
