package io.ferry.transport.ledbat.cc;

import static io.ferry.transport.ledbat.cc.LedbatTuning.*;

/**
 * LEDBAT++ (draft-irtf-iccrg-ledbat-plus-plus-06), with one-way delay measured by uTP's timestamps
 * ({@link OneWayDelay}) instead of the draft's round-trip times.
 *
 * <p>{@link #draft} is the draft as written: a dynamic GAIN from the base RTT, slow start left at 3/4 of
 * the target, a multiplicative decrease of at most half the window per round trip, and initial and
 * periodic slowdowns to two packets. {@link #competitionAware}, Ferry's default
 * ({@code ledbat}), changes seven things so that it yields to CUBIC and BBR within seconds and uses an
 * idle link whole: a target tied to a quarter of the base RTT; a decrease sized to its own excess and a
 * hold at the minimum window for someone else's queue ({@link CompetitorDetector}); growth of an eighth
 * per round trip into an empty link; slow starts that end on a standing queue; cheaper slowdowns;
 * additive steps that share a queue fairly ({@link #additiveStepPackets}); and losses answered only when
 * a queue shows they were congestion's ({@link LossClassifier}). Each change, the measurement that chose
 * it and the alternatives tried are in docs/ledbat-scavenger.md; the values in {@link LedbatTuning}.
 */
public final class LedbatPlusPlus implements CongestionControl {
    private static final long NEVER = Long.MIN_VALUE;

    private enum Phase { SLOW_START, AVOIDANCE, SLOWDOWN, REGROWTH }

    private final String name;
    private final int mss;
    private final long targetMicros;
    private final double rttFraction;
    private final boolean quickSlowdowns;
    private final OneWayDelay delay = new OneWayDelay();
    private final BaseDelayHistory minRtt = new BaseDelayHistory();

    private double cwnd;
    private double ssthresh = Double.MAX_VALUE;
    private Phase phase = Phase.SLOW_START;
    /** The connection's pacer held data back at the last send attempt (see {@link #onPacerHeld}). */
    private boolean pacerHeld;
    private long smoothedRttMicros = -1;
    private long lastReductionNanos = NEVER;
    private final SlowdownSchedule slowdowns;
    private long roundStartNanos = NEVER;
    private long roundMinQueueMicros = Long.MAX_VALUE;
    /** Round trips ended so far: the clock of the loss classifier's largest standing queue. */
    private long rounds;
    private final LossClassifier losses = new LossClassifier();
    private final CompetitorDetector competitors;
    private long randomLosses;
    private long lossBoundUntilNanos = NEVER;
    private long standingQueueMicros;
    private long roundBytesAcked;
    /** The window before {@link LossProbe}'s test decrease, -1 when none runs. */
    private double windowBeforeProbe = -1;
    private final RoundRates rates = new RoundRates(REGROWTH_RATE_ROUNDS, RATE_MEMORY_NANOS);

    private LedbatPlusPlus(String name, CongestionParameters parameters, double rttFraction, boolean quickSlowdowns) {
        if (rttFraction < 0 || rttFraction > 1) {
            throw new IllegalArgumentException("rttFraction must be in 0..1, was " + rttFraction);
        }
        this.name = name;
        this.mss = parameters.maxPayloadBytes();
        this.targetMicros = parameters.targetDelayMicros();
        this.rttFraction = rttFraction;
        this.quickSlowdowns = quickSlowdowns;
        this.cwnd = (double) INIT_CWND * mss;
        this.competitors = new CompetitorDetector(mss);
        this.slowdowns = new SlowdownSchedule(INITIAL_SLOWDOWN_DELAY_RTTS,
                quickSlowdowns ? QUICK_SLOWDOWN_INTERVAL_FACTOR : SLOWDOWN_INTERVAL_FACTOR);
    }

    /** LEDBAT++ as the draft specifies it, registered as {@value CongestionControls#LEDBAT_PLUS_PLUS}. */
    public static LedbatPlusPlus draft(CongestionParameters parameters) {
        return new LedbatPlusPlus(CongestionControls.LEDBAT_PLUS_PLUS, parameters, 0, false);
    }

    /**
     * Ferry's default, registered as {@value CongestionControls#LEDBAT}: LEDBAT++ with the target tied to
     * {@code rttFraction} of the base RTT and cheaper slowdowns (see the class description).
     */
    public static LedbatPlusPlus competitionAware(CongestionParameters parameters, double rttFraction) {
        return new LedbatPlusPlus(CongestionControls.LEDBAT, parameters, rttFraction, true);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void onPacerHeld(boolean held) {
        pacerHeld = held;
    }

    @Override
    public void onPacketSent(int payloadBytes, boolean retransmission, long bytesInFlightBeforeSend, long nowNanos) {
        losses.onSent();
    }

    @Override
    public void onDelaySample(int delayMicros32, long nowNanos) {
        delay.addSample(delayMicros32, nowNanos);
    }

    @Override
    public void onAck(long bytesNewlyAcked, long bytesInFlightBeforeAck, long rttSampleNanos, long nowNanos) {
        if (rttSampleNanos > 0) {
            noteRtt(rttSampleNanos / 1000, nowNanos);
        }
        if (bytesNewlyAcked <= 0 || delay.isEmpty()) {
            return;
        }
        double target = effectiveTargetMicros();
        roundBytesAcked += bytesNewlyAcked;
        noteStandingQueue(delay.queuingMicros(), nowNanos);
        if (losses.probing()) {
            return; // a test decrease holds the window where it cut it
        }
        if (phase == Phase.SLOWDOWN) {
            long elapsed = slowdowns.sinceStartNanos(nowNanos);
            boolean drained = quickSlowdowns && elapsed >= rttNanos()
                    && delay.queuingMicros() <= Math.max(DRAINED_MICROS, target * DRAINED_FRACTION);
            if (drained || elapsed >= SLOWDOWN_RTTS * rttNanos()) {
                phase = Phase.REGROWTH;
                if (quickSlowdowns) {
                    // the drained queue was the point; doubling from two packets back to the window
                    // took ten round trips on a 150 ms path (1.6 s), so start from a part of it
                    cwnd = Math.max(cwnd, ssthresh * REGROWTH_START_FRACTION);
                }
                // the regrowth ends on the queue that stands through its own round trips, not on one
                // measured before the slowdown drained it
                standingQueueMicros = delay.queuingMicros();
                roundMinQueueMicros = Long.MAX_VALUE;
                roundStartNanos = nowNanos;
                roundBytesAcked = 0;
            }
            return;
        }
        double queuing = delay.queuingMicros();
        double before = cwnd;
        double cap;
        if (phase == Phase.SLOW_START || phase == Phase.REGROWTH) {
            // the draft reacts to every filtered sample; the default to the queue that stood through the
            // last round trip (a burst of its own paced slow start is no reason to stop), or to a sample
            // above what would end the draft's slow start
            boolean exit = quickSlowdowns
                    ? standingQueueMicros > SLOW_START_EXIT_FRACTION * target || queuing > SLOW_START_EXIT_FRACTION * targetMicros
                    : queuing > SLOW_START_EXIT_FRACTION * target;
            if (exit) {
                endSlowStart(nowNanos);
                return;
            }
            cwnd += (phase == Phase.REGROWTH && quickSlowdowns ? 1.0 : gain()) * bytesNewlyAcked;
            // doubling per round trip unless the application, not the pacer, kept the flight short (up
            // to twice the flight: a round's growth)
            double used = pacerHeld ? Math.max(bytesInFlightBeforeAck, Math.min(before, 2.0 * bytesInFlightBeforeAck)) : bytesInFlightBeforeAck;
            cap = Math.max(before, used + Math.max(bytesNewlyAcked, mss));
            if (cwnd >= ssthresh) {
                cwnd = Math.max(before, ssthresh);
                endSlowStart(nowNanos);
            }
        } else {
            if (slowdowns.isDue(nowNanos)) {
                startSlowdown(nowNanos);
                return;
            }
            double packets = cwnd / mss;
            double perRtt;
            boolean fillingEmptyLink = false;
            if (!quickSlowdowns) {
                perRtt = queuing <= target ? gain()
                        : Math.max(gain() - DECREASE_CONSTANT * packets * (queuing / target - 1), -packets / 2);
                cwnd += perRtt * mss * bytesNewlyAcked / cwnd;
            } else {
                // aim below the target by the queue one step adds at the link's rate, so that the queue
                // the steps and decreases move around averages the target rather than more; the same aim
                // for every flow on the path, as flows aiming at different queues would not share fairly
                boolean lossBound = lossBoundUntilNanos != NEVER && nowNanos < lossBoundUntilNanos;
                // a flow delivering less than half of the largest rate it has seen, unless held after
                // yielding, shares the queue with another scavenger that took the link while it yielded:
                // it steps further (CATCH_UP_STEP_FACTOR), so the two even out in seconds, not tens of seconds
                boolean catchingUp = !competitors.stepHeld() && rates.last() < UNDER_SHARE_FRACTION * rates.max();
                double step = lossBound ? Math.min(additiveStepPackets(), LOSS_BOUND_STEP)
                        : additiveStepPackets() * (catchingUp ? CATCH_UP_STEP_FACTOR : 1);
                double aim = target * (1 - FAIR_STEP_FRACTION);
                if (queuing <= aim && lossBound) {
                    perRtt = step;
                } else if (queuing <= aim) {
                    // a queue that stood below a quarter of the target through the last round trip means
                    // the link is not full: grow by an eighth per round trip rather than by one step
                    // (not while held after yielding: the queue of a competitor that just backed off, or
                    // paused, drains for a moment)
                    fillingEmptyLink = !competitors.stepHeld() && standingQueueMicros < target * STILL_EMPTY_FRACTION;
                    perRtt = fillingEmptyLink ? Math.max(step, packets * EMPTY_GROWTH) : step;
                } else if (competitors.yielding() && queuing > target) {
                    // a queue above the target that stood through round trips of our own decrease is
                    // someone else's: halve per round trip, as far as the draft ever goes, until the
                    // queue is back below the target
                    perRtt = -packets / 2;
                } else {
                    // remove our own excess in about one round trip (the draft's (delay / TARGET - 1) cuts
                    // RTT / TARGET times deeper, far below the path's capacity when TARGET is small)
                    // a flow catching up keeps its step, so that the two do not settle with the queue just
                    // above the aim and neither stepping
                    double up = catchingUp && queuing <= target ? step : gain();
                    perRtt = Math.max(up - DECREASE_CONSTANT * packets * (queuing - aim) / (rttNanos() / 1000.0), -packets / 2);
                }
                // spread over the acknowledgements of one round trip: those of the whole flight, which
                // after a decrease is larger than the window
                cwnd += perRtt * mss * bytesNewlyAcked / Math.max(cwnd, bytesInFlightBeforeAck);
            }
            // the window grows only as far as the flight, except into an empty link while the pacer, not
            // the application, kept the flight short of the window, and then by no more than a round's
            // growth beyond the flight: acknowledgements read in one batch free more than the pacer's
            // burst, and the eighth per round trip was held to a few packets (2.7 to 4.5 MB took 5 s at
            // 150 ms; after a yield on the 20 ms path the window stayed at a fifth of the link for
            // seconds with the queue empty)
            double used = fillingEmptyLink && pacerHeld
                    ? Math.max(bytesInFlightBeforeAck, Math.min(before, (1 + EMPTY_GROWTH) * bytesInFlightBeforeAck)) : bytesInFlightBeforeAck;
            cap = Math.max(before, used + mss);
        }
        cwnd = Math.max(Math.min(cwnd, cap), (double) MIN_CWND * mss);
    }

    /** Keeps the smallest queuing delay of each round trip: the queue that stood through it. */
    private void noteStandingQueue(long queuingMicros, long nowNanos) {
        if (roundStartNanos == NEVER) {
            roundStartNanos = nowNanos;
        }
        roundMinQueueMicros = Math.min(roundMinQueueMicros, queuingMicros);
        if (nowNanos - roundStartNanos >= rttNanos()) {
            // the queue that stood through the round: a buffer overflowing fills for round trips, while
            // scheduling noise lifts single samples only
            LossProbe.Verdict probe = losses.endRound(roundMinQueueMicros, roundBytesAcked, mss, rounds++,
                    quickSlowdowns && phase == Phase.AVOIDANCE, nowNanos);
            rates.add(roundBytesAcked * 1e9 / (nowNanos - roundStartNanos), nowNanos);
            roundBytesAcked = 0;
            standingQueueMicros = roundMinQueueMicros;
            double target = effectiveTargetMicros();
            switch (competitors.endRound(phase == Phase.AVOIDANCE, cwnd, standingQueueMicros, target,
                    target * (1 - FAIR_STEP_FRACTION), rates.last(), nowNanos, yieldHoldNanos(), rttNanos())) {
                case YIELD -> {
                    cwnd = (double) MIN_CWND * mss;
                    endProbe();
                    probe = LossProbe.Verdict.NONE;
                }
                case FALSE_ALARM -> {
                    endProbe();
                    probe = LossProbe.Verdict.NONE;
                    ssthresh = Math.max(competitors.windowBeforeYield(), (double) MIN_CWND * mss);
                    phase = Phase.REGROWTH;
                    // the empty queue refreshed the base delay as a slowdown does: the next one is timed from here
                    slowdowns.restartFrom(competitors.yieldNanos());
                }
                case NONE -> {
                }
            }
            roundMinQueueMicros = Long.MAX_VALUE;
            roundStartNanos = nowNanos;
            onProbe(probe, nowNanos);
        }
    }

    /** Ends a test decrease without its verdict: the window was set for another reason, which stands. */
    private void endProbe() {
        losses.cancelProbe();
        windowBeforeProbe = -1;
    }

    /** Applies {@link LossProbe}'s verdict: the test decrease, and then either the window back or the cut kept. */
    private void onProbe(LossProbe.Verdict verdict, long nowNanos) {
        switch (verdict) {
            case CUT -> {
                windowBeforeProbe = cwnd;
                cwnd = Math.max(cwnd / 2, (double) MIN_CWND * mss);
            }
            case CANCELLED -> windowBeforeProbe = -1;
            case RANDOM -> {
                if (windowBeforeProbe >= 0) {
                    cwnd = Math.max(cwnd, windowBeforeProbe);
                }
                windowBeforeProbe = -1;
            }
            case OVERFLOW -> {
                // as after a loss taken for a shallow buffer's: the window, not the queue, keeps this flow behind TCP
                windowBeforeProbe = -1;
                ssthresh = cwnd;
                lossBoundUntilNanos = nowNanos + Math.max(LOSS_BOUND_NANOS, LossClassifier.PEAK_QUEUE_ROUNDS * rttNanos());
                lastReductionNanos = nowNanos;
                if (phase == Phase.SLOW_START || phase == Phase.REGROWTH) {
                    endSlowStart(nowNanos);
                }
            }
            case NONE -> {
            }
        }
    }

    /**
     * The additive increase per round trip of {@link #competitionAware} while the queue is at or below
     * the target, in packets: the largest of GAIN, {@link LedbatTuning#FAIR_STEP_FACTOR} times the square root of the
     * window, and the packets that {@link LedbatTuning#FAIR_STEP_FRACTION} of the target holds at the largest delivery
     * rate seen lately.
     *
     * <p>The square root is deliberately not capped by the rate-based step: a flow that never had the
     * link to itself knows a smaller rate, and any cap drawn from it would bring back the unequal steps.
     * On a link whose bandwidth-delay product is a few dozen packets one step is a large part of the
     * target; the decrease removes it within a round trip, and the mean queue stays at the target (in
     * simulation at 10 Mbit/s and 50 ms: 12 ms for a target of 12.5 ms).
     *
     * <p>Flows sharing a queue see the same queuing delay and each removes a part of its excess
     * proportional to its window, so their windows settle in the ratio of their additive steps. The
     * square root grows slower than the window, which makes that ratio one whatever the flows have seen;
     * the rate-based step is the same for all flows that have had the link to themselves, and lets a flow
     * that yielded to another's start climb back from the minimum window in a few seconds. With GAIN alone
     * (half a packet per round trip on a 100 ms path) two flows would need minutes to even out. The step
     * applies only while the queue is at or below the target, which a loss-based or BBR flow holding its
     * own queue above it never allows for long; and after this flow yielded to someone else's queue the
     * step is GAIN until the queue has drained once, so the dip of a TCP flow recovering from a loss
     * (its queue below the target for a few round trips) is no invitation to climb back.
     */
    double additiveStepPackets() {
        if (competitors.stepHeld()) {
            return gain();
        }
        double rate = rates.max();
        double fromRate = rate * effectiveTargetMicros() * FAIR_STEP_FRACTION / 1e6 / mss;
        return Math.max(gain(), Math.max(FAIR_STEP_FACTOR * Math.sqrt(cwnd / mss), fromRate));
    }

    private void noteRtt(long rttMicros, long nowNanos) {
        delay.addRtt(rttMicros);
        minRtt.add((int) Math.min(rttMicros, Integer.MAX_VALUE), nowNanos);
        smoothedRttMicros = smoothedRttMicros < 0 ? rttMicros : (7 * smoothedRttMicros + rttMicros) / 8;
    }

    private void endSlowStart(long nowNanos) {
        slowdowns.growthEnded(phase == Phase.REGROWTH, nowNanos, rttNanos());
        phase = Phase.AVOIDANCE;
    }

    private void startSlowdown(long nowNanos) {
        ssthresh = cwnd;
        if (quickSlowdowns && minRtt.base() > 0 && smoothedRttMicros > 0) {
            // regrow to the window that holds the target queue, not to one a slow start overshot with
            double held = minRtt.base() + effectiveTargetMicros();
            double fits = Math.min(cwnd, cwnd * held / (double) smoothedRttMicros);
            // nor to less than what the last round trips delivered needs: after a slow start that
            // overshot, the window was halved by the loss and the smoothed RTT still carries the queue
            // the overshoot built, and the two together had put the target at a third of a 150 ms path.
            // Not after a loss taken for a shallow buffer's: there the halved window, not the queue,
            // keeps the flow behind TCP
            double delivered = lossBoundUntilNanos == NEVER || nowNanos >= lossBoundUntilNanos ? rates.recentMax() : 0;
            ssthresh = Math.max((double) MIN_CWND * mss, Math.max(fits, delivered * held / 1e6));
        }
        cwnd = (double) MIN_CWND * mss;
        phase = Phase.SLOWDOWN;
        slowdowns.start(nowNanos);
    }

    @Override
    public boolean onLoss(long nowNanos, long smoothedRttNanos) {
        losses.onLoss();
        if (phase == Phase.SLOWDOWN) {
            return false;
        }
        if (lastReductionNanos != NEVER && smoothedRttNanos > 0 && nowNanos - lastReductionNanos < smoothedRttNanos) {
            return false;
        }
        if (quickSlowdowns) {
            if (!congestiveLoss(nowNanos)) {
                randomLosses++;
                return false;
            }
            if (delay.queuingMicros() <= effectiveTargetMicros()) {
                lossBoundUntilNanos = nowNanos + Math.max(LOSS_BOUND_NANOS, LossClassifier.PEAK_QUEUE_ROUNDS * rttNanos());
            }
        }
        losses.answered();
        cwnd = Math.max(cwnd / 2, (double) MIN_CWND * mss);
        lastReductionNanos = nowNanos;
        if (phase != Phase.AVOIDANCE) {
            endSlowStart(nowNanos);
        }
        return true;
    }

    /** Whether a loss now is congestion's ({@link LossClassifier}). */
    boolean congestiveLoss(long nowNanos) {
        return losses.isCongestive(delay.queuingMicros(), effectiveTargetMicros(), nowNanos);
    }

    /** How often {@link #competitionAware} took a queue for someone else's and dropped to its minimum window. */
    public long yields() {
        return competitors.yields();
    }

    /** Yields that the drained queue behind them showed to be false alarms, and that ended early. */
    public long falseAlarms() {
        return competitors.falseAlarms();
    }

    /** Test decreases ({@link LossProbe}) that found the window overflowing a buffer too shallow to show a queue. */
    public long probedOverflows() {
        return losses.overflows();
    }

    /** Losses {@link #onLoss} took for random ones and did not answer. */
    public long randomLosses() {
        return randomLosses;
    }

    @Override
    public void onTimeout(long nowNanos) {
        endProbe();
        if (phase == Phase.SLOWDOWN) {
            phase = Phase.REGROWTH;
        } else {
            ssthresh = Math.max(cwnd / 2, (double) MIN_CWND * mss);
            if (phase == Phase.AVOIDANCE) {
                // regrow to half the window; the slowdown schedule carries on from the regrowth's end
                slowdowns.restartFrom(nowNanos);
                phase = Phase.REGROWTH;
            }
        }
        cwnd = mss;
        lastReductionNanos = nowNanos;
    }

    @Override
    public long cwndBytes() {
        return (long) cwnd;
    }

    @Override
    public boolean inSlowStart() {
        return phase == Phase.SLOW_START || phase == Phase.REGROWTH;
    }

    @Override
    public long queuingDelayMicros() {
        return delay.queuingMicros();
    }

    @Override
    public long baseDelayMicros() {
        return delay.baseMicros();
    }

    /** The target in force: the configured one, or less when tied to the base RTT. */
    long effectiveTargetMicros() {
        if (rttFraction == 0 || minRtt.isEmpty()) {
            return targetMicros;
        }
        long tied = Math.max(MIN_ADAPTIVE_TARGET_MICROS, (long) (rttFraction * minRtt.base()));
        return Math.min(targetMicros, tied);
    }

    /** The dynamic GAIN of the draft, from the configured target and the base RTT. */
    double gain() {
        if (minRtt.isEmpty()) {
            return 1.0 / MAX_GAIN_DIVISOR;
        }
        long base = Math.max(1, minRtt.base());
        long divisor = Math.min(MAX_GAIN_DIVISOR, (2 * targetMicros + base - 1) / base);
        return 1.0 / Math.max(1, divisor);
    }

    /** Whether a slowdown is holding the window at its minimum now. */
    boolean inSlowdown() {
        return phase == Phase.SLOWDOWN;
    }

    /** How many slowdowns began so far. */
    long slowdowns() {
        return slowdowns.count();
    }

    private long rttNanos() {
        return smoothedRttMicros > 0 ? smoothedRttMicros * 1000 : 100_000_000L;
    }

    /**
     * How long a yield holds: {@link LedbatTuning#YIELD_HOLD_NANOS}, or {@link LedbatTuning#YIELD_HOLD_ROUNDS} round trips of the
     * path with our target queue on it if that is longer. Not the smoothed RTT of the moment: a competitor's
     * slow start that made us yield has just inflated it (a newcomer overshooting by 110 ms on a 100 ms
     * path doubled the hold to 4 s), and the quiet rounds the release also waits for keep a standing
     * TCP queue from ending the hold anyway.
     */
    private long yieldHoldNanos() {
        long roundNanos = minRtt.isEmpty() ? rttNanos() : (minRtt.base() + effectiveTargetMicros()) * 1000;
        return Math.max(YIELD_HOLD_NANOS, YIELD_HOLD_ROUNDS * Math.min(roundNanos, rttNanos()));
    }
}
