package io.ferry.transport.ledbat.cc;

/**
 * LEDBAT++ (draft-irtf-iccrg-ledbat-plus-plus, revision 06), with one-way delay measured by uTP's
 * timestamps instead of the draft's round-trip times, and an optional target tied to the base RTT
 * that makes it yield to flows which keep a standing queue below a fixed target (BBR).
 *
 * <ul>
 *   <li><b>Delay</b>: {@code queuing = current - base} of the one-way delay ({@link OneWayDelay}).</li>
 *   <li><b>Dynamic GAIN</b>: {@code GAIN = 1 / min(16, ceil(2 * TARGET / base_rtt))} with
 *       {@code base_rtt} the minimum RTT seen over ten minutes, so that flows on short paths grow no
 *       faster per second than flows on long ones.</li>
 *   <li><b>Slow start</b>: from two packets, {@code cwnd += GAIN * bytes_acked}, left for good when the
 *       queuing delay exceeds 3/4 of the target, on loss, or on a timeout.</li>
 *   <li><b>Congestion avoidance</b>, per round trip: below the target {@code W += GAIN}; above it
 *       {@code W += max(GAIN - W * (delay / TARGET - 1), -W / 2)} (the draft's constant C = 1), so the
 *       window halves at most once per round trip instead of RFC 6817's one packet.</li>
 *   <li><b>Periodic slowdown</b>: two round trips after the initial slow start ends, and then nine
 *       times the length of the previous slowdown after it ended, the window drops to two packets for
 *       two round trips ({@code ssthresh} keeps the old window) and slow start brings it back. The queue
 *       drains, so every flow sharing it re-learns the true base delay (the latecomer's advantage goes),
 *       at a cost of about a tenth of the throughput in the worst case.</li>
 *   <li>Loss halves the window at most once per round trip; a timeout collapses it to one packet and
 *       slow start runs again up to half of what it was, as in TCP.</li>
 * </ul>
 *
 * <p><b>Ferry's default</b> ({@link #competitionAware}, registered as {@code ledbat}) changes seven things,
 * each chosen by measurement on the emulated 100 Mbit/s link (see the module README):
 * <ol>
 *   <li><b>A target tied to the base RTT</b>: {@code min(TARGET, max(5 ms, rttFraction * base_rtt))},
 *       a quarter of the base RTT by default. A fixed target fails against a flow that keeps its own
 *       standing queue below it: BBR v1 caps its data in flight at twice its bandwidth-delay product, so
 *       the queue it holds against a competitor is about one base RTT (20 ms on a 20 ms path), and
 *       LEDBAT++ with its 60 ms target never backs off. A quarter of the base RTT is enough queue to keep
 *       the link busy and well below what BBR keeps; a loss-based flow arriving is noticed as soon as its
 *       queue passes that small target, not only at 60 ms.</li>
 *   <li><b>A decrease sized to its own excess, and a hard one for someone else's</b>: above the target
 *       the window shrinks per round trip by {@code W * (delay - TARGET) / RTT}, which removes its own
 *       excess in about one round trip (the draft's {@code W * (delay / TARGET - 1)} assumes a target
 *       large against the RTT and would cut RTT/TARGET times too deep, leaving the link idle while
 *       GAIN-sized steps climb back). Someone else's queue gets TCP-LP's answer: the minimum window, and
 *       no climbing back (GAIN-sized steps only) for {@link #YIELD_HOLD_NANOS} or
 *       {@value #YIELD_HOLD_ROUNDS} round trips and then until the queue has not stood above the target
 *       for {@value CompetitorDetector#RELEASE_QUIET_ROUNDS} round trips and {@link CompetitorDetector#RELEASE_QUIET_NANOS} (longer than
 *       BBR's 200 ms PROBE_RTT pause). It is someone else's when, in congestion
 *       avoidance and {@value CompetitorDetector#SETTLING_ROUNDS} round trips after a slow start or regrowth (whose
 *       overshoot is our own), either the queue stands more than a quarter above the target through
 *       {@value CompetitorDetector#COMPETITION_ROUNDS} whole round trips (the smallest sample of each; twice the target
 *       through one), or our decreases grow round after round ({@link CompetitorDetector#SHRINK_ACCELERATION} times each,
 *       {@value CompetitorDetector#ACCELERATING_SHRINK_ROUNDS} times in a row, {@link CompetitorDetector#SLOW_START_SHRINK_FRACTION} of the
 *       window in all): a newcomer in slow start whose queue our own decrease keeps removing. A yield
 *       raised by that second sign alone is checked: if the queue behind it stays (nearly) empty for
 *       {@value CompetitorDetector#FALSE_ALARM_ROUNDS} round trips, nobody took the link (a stall of the path had lifted
 *       the delay), the hold ends and the window regrows by doubling; a regrowth that then delivers
 *       less than {@link CompetitorDetector#PROBATION_RATE_FRACTION} of the flow's typical rate, behind a standing
 *       queue, yields again for the full hold, as does any yield within
 *       {@link CompetitorDetector#FALSE_ALARM_SPACING_NANOS} of such a release. Decreases are spread over the acknowledgements of one flight.</li>
 *   <li><b>Growth that finds an empty link</b>: while the queue that stood through the last round trip is
 *       below a quarter of the target, the link is not full and the window grows by an eighth per round
 *       trip rather than by GAIN packets. The window grows only as far as the flight (an application
 *       with nothing to send earns no window), except that a flight the connection's pacer held short
 *       ({@link #onPacerHeld}) counts as using the window - in slow start, and here while no competitor
 *       was yielded to in the last {@link #RATE_MEMORY_NANOS}: acknowledgements read in a batch free
 *       more than the pacer's burst, and on a 150 ms path the eighth per round trip had been held to a
 *       few packets (2.7 to 4.5 MB took 5 s).</li>
 *   <li><b>Slow starts that ignore their own bursts</b>: they end when the queue that stood through a
 *       round trip exceeds 3/4 of the target (or any sample exceeds 3/4 of the configured target), not
 *       on one sample above a target of a few milliseconds.</li>
 *   <li><b>Cheaper slowdowns</b>: a slowdown ends as soon as, after one round trip, the queuing delay
 *       reads (nearly) zero (the queue drained, so the base delay is true; one that finds someone else's
 *       queue lasts the draft's two round trips); the window regrows by doubling, as TCP regrows to
 *       {@code ssthresh}, from {@link #REGROWTH_START_FRACTION} of it (not from two packets, which took
 *       ten round trips on a 150 ms path) to the window that held the target queue ({@code W * (base_rtt + TARGET) /
 *       srtt}) rather than to one a slow start had overshot with; and the slowdowns come
 *       {@value #QUICK_SLOWDOWN_INTERVAL_FACTOR} (not 9) slowdown lengths apart: the initial one already
 *       lets a latecomer learn the true base delay, later ones only keep it fresh. A lone flow's link use
 *       on the emulated 20 ms path goes from about 90 % to 97 %.</li>
 *   <li><b>Steps that share</b>: below the target the window grows per round trip by the larger of
 *       the square root of the window and the packets an eighth of the target holds at the largest
 *       delivery rate seen (see {@link #additiveStepPackets}), not by GAIN, and it aims at 7/8 of the
 *       target so that those steps leave the mean queue at the target. Two flows whose windows settle in
 *       the ratio of their steps then even out within seconds after one joins the other (Jain's index
 *       0.95 over the 20 s after a second flow joined, at 20 and 100 ms), where GAIN-sized steps left the
 *       newcomer or the one that yielded to it behind for minutes (0.84 and 0.62). A flow delivering
 *       less than {@link #UNDER_SHARE_FRACTION} of the largest rate it has seen keeps its step while the
 *       queue is between the aim and the target, so that two flows do not settle just above the aim with
 *       both adding only GAIN.</li>
 *   <li><b>Random loss is not congestion</b>: a loss halves the window only when a queue shows it was
 *       congestion's ({@link LossClassifier}): the queue above the target; or, behind a buffer
 *       too shallow for the queue ever to reach the target, at least half of the largest queue that
 *       stood through one of the last round trips standing at the loss (the buffer overflowing); or
 *       more than half of a round trip's packets lost (a buffer of a packet or two). Other losses - a
 *       lossy link's - leave the window and a slow start alone, so 25 % loss each way costs the
 *       retransmissions and not the rate (emulated, 2.8 MB over 50 ms: 4.5 s instead of 70 s). After a loss taken for a shallow buffer's, growth is
 *       held to {@link #LOSS_BOUND_STEP} packets per round trip for {@link #LOSS_BOUND_NANOS}, half of
 *       TCP Reno's: there the window, not the queue, is what keeps the scavenger behind TCP.</li>
 * </ol>
 */
public final class LedbatPlusPlus implements CongestionControl {
    /** Smallest window, in packets (RFC 6817 MIN_CWND; also the window of a slowdown). */
    static final int MIN_CWND = 2;
    /** Initial window, in packets. */
    static final int INIT_CWND = 2;
    /** Largest divisor of the dynamic GAIN. */
    static final int MAX_GAIN_DIVISOR = 16;
    /** Slow start ends when the queuing delay exceeds this fraction of the target. */
    static final double SLOW_START_EXIT_FRACTION = 0.75;
    /**
     * Where {@link #competitionAware}'s regrowth after a slowdown starts, as a fraction of the window
     * it regrows to: the slowdown's two packets for a round trip or two drain the queue, which is its
     * purpose; regrowing from there by doubling would cost log2 of the window in packets round trips.
     */
    static final double REGROWTH_START_FRACTION = 0.125;
    /** The draft's multiplicative-decrease constant C. */
    static final double DECREASE_CONSTANT = 1.0;
    /** Round trips a slowdown holds the window at its minimum. */
    static final int SLOWDOWN_RTTS = 2;
    /** Round trips after the initial slow start before the first slowdown. */
    static final int INITIAL_SLOWDOWN_DELAY_RTTS = 2;
    /** The draft's spacing: the next slowdown starts this many slowdown lengths after the previous one ended. */
    static final int SLOWDOWN_INTERVAL_FACTOR = 9;
    /**
     * The spacing of {@link #competitionAware}'s slowdowns: they only refresh the base delay once the
     * initial one has let a latecomer learn it, so a cost of about 3 % rather than 10 % is enough.
     */
    static final int QUICK_SLOWDOWN_INTERVAL_FACTOR = 30;
    /** The smallest target the RTT-tied rule uses: below it, timer and scheduling noise dominate. */
    static final long MIN_ADAPTIVE_TARGET_MICROS = 5_000;

    /** Below this fraction of the target, a queue that stood through a round trip means the link is not full. */
    static final double STILL_EMPTY_FRACTION = 0.25;
    /** {@link #competitionAware}'s growth per round trip, as a fraction of the window, while the link is not full. */
    static final double EMPTY_GROWTH = 0.125;
    /** A quick slowdown ends when the queuing delay is at most this, or {@link #DRAINED_FRACTION} of the target. */
    static final long DRAINED_MICROS = 1_000;
    /** See {@link #DRAINED_MICROS}. */
    static final double DRAINED_FRACTION = 0.125;

    /**
     * {@link #competitionAware}'s additive step per round trip is this many times the square root of
     * its window in packets (see {@link #additiveStepPackets}).
     */
    static final double FAIR_STEP_FACTOR = 1.0;
    /**
     * ... or, if larger, the packets that this fraction of the target holds at the largest delivery rate
     * seen lately: the same for every flow that has seen the link to itself, however small its window.
     */
    static final double FAIR_STEP_FRACTION = 0.125;
    /**
     * ... and no sooner than this long after it yielded (TCP-LP's inference time-out): a TCP flow whose
     * slow start ended early (CUBIC's HyStart, misled by the scavenger's packets between its own) leaves
     * the link part empty while it grows into it, and a TCP flow recovering from the losses of its slow
     * start, or BBR in PROBE_RTT, leaves the queue empty for a moment.
     */
    static final long YIELD_HOLD_NANOS = 2_000_000_000L;
    /** ... or this many round trips, if longer. */
    static final int YIELD_HOLD_ROUNDS = 20;
    /** Below this fraction of the largest delivery rate seen, a flow keeps its step when just above the aim. */
    static final double UNDER_SHARE_FRACTION = 0.5;
    /**
     * Such a flow's step, while the queue is at or below the target, is this many times its fair step:
     * with one step the flow that yielded to a second scavenger's start took 8 s to climb from two packets
     * to half the link at 100 ms (Jain's index 0.89-0.92 over the 20 s after the join). Below 2: the aim
     * (7/8 of the target) plus this step and the other flow's (an eighth of the target each, at the rate
     * both have seen) must stay under {@link CompetitorDetector#COMPETITION_MARGIN}, or two flows stepping in the same
     * round stand a queue that reads as a competitor's (at exactly 2 the fluid model of two flows made
     * each yield to the other now and then).
     */
    static final double CATCH_UP_STEP_FACTOR = 1.75;
    /** How long the largest delivery rate of a round trip is remembered (two half-length buckets). */
    static final long RATE_MEMORY_NANOS = 30_000_000_000L;

    /** Round trips whose delivery rates size the regrowth after a slowdown (the largest of them). */
    static final int REGROWTH_RATE_ROUNDS = 4;
    /**
     * After a congestion loss with the queue at or below the target (a buffer that overflowed before
     * the delay signal could act), the window grows by at most this many packets per round trip, half
     * of TCP Reno's, and never by the growth for an empty link: with no queue to see, the window is
     * all that keeps this flow behind a loss-based one ...
     */
    static final double LOSS_BOUND_STEP = 0.5;
    /** ... until this long has passed without such a loss. */
    static final long LOSS_BOUND_NANOS = 10_000_000_000L;

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
    private long slowdownStartNanos = NEVER;
    private long nextSlowdownNanos = NEVER;
    private long slowdowns;
    private long roundStartNanos = NEVER;
    private long roundMinQueueMicros = Long.MAX_VALUE;
    /** Round trips ended so far: the clock of the loss classifier's largest standing queue. */
    private long rounds;
    private final LossClassifier losses = new LossClassifier();
    private final CompetitorDetector competitors;
    private long randomLosses;
    private long lossBoundUntilNanos = NEVER;
    private long standingQueueMicros;
    private double lastRoundRate;
    private final double[] recentRoundRates = new double[REGROWTH_RATE_ROUNDS];
    private int recentRoundRateNext;
    private long roundBytesAcked;
    /** The largest delivery rate of a round trip over about {@link #RATE_MEMORY_NANOS}. */
    private final BucketedMax maxRate = new BucketedMax(RATE_MEMORY_NANOS / 2);

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
        if (phase == Phase.SLOWDOWN) {
            long elapsed = nowNanos - slowdownStartNanos;
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
            if (nextSlowdownNanos != NEVER && nowNanos >= nextSlowdownNanos) {
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
                boolean catchingUp = !competitors.stepHeld() && lastRoundRate < UNDER_SHARE_FRACTION * maxRate.get();
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
            losses.endRound(roundMinQueueMicros, roundBytesAcked, mss, rounds++);
            lastRoundRate = roundBytesAcked * 1e9 / (nowNanos - roundStartNanos);
            recentRoundRates[recentRoundRateNext++ % REGROWTH_RATE_ROUNDS] = lastRoundRate;
            maxRate.add(lastRoundRate, nowNanos);
            roundBytesAcked = 0;
            standingQueueMicros = roundMinQueueMicros;
            double target = effectiveTargetMicros();
            switch (competitors.endRound(phase == Phase.AVOIDANCE, cwnd, standingQueueMicros, target,
                    target * (1 - FAIR_STEP_FRACTION), lastRoundRate, nowNanos, yieldHoldNanos(), rttNanos())) {
                case YIELD -> cwnd = (double) MIN_CWND * mss;
                case FALSE_ALARM -> {
                    ssthresh = Math.max(competitors.windowBeforeYield(), (double) MIN_CWND * mss);
                    phase = Phase.REGROWTH;
                    // the empty queue refreshed the base delay as a slowdown does: the next one is timed from here
                    slowdownStartNanos = competitors.yieldNanos();
                }
                case NONE -> {
                }
            }
            roundMinQueueMicros = Long.MAX_VALUE;
            roundStartNanos = nowNanos;
        }
    }

    /**
     * The additive increase per round trip of {@link #competitionAware} while the queue is at or below
     * the target, in packets: the largest of GAIN, {@link #FAIR_STEP_FACTOR} times the square root of the
     * window, and the packets that {@link #FAIR_STEP_FRACTION} of the target holds at the largest delivery
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
        double rate = maxRate.get();
        double fromRate = rate * effectiveTargetMicros() * FAIR_STEP_FRACTION / 1e6 / mss;
        return Math.max(gain(), Math.max(FAIR_STEP_FACTOR * Math.sqrt(cwnd / mss), fromRate));
    }

    private void noteRtt(long rttMicros, long nowNanos) {
        delay.addRtt(rttMicros);
        minRtt.add((int) Math.min(rttMicros, Integer.MAX_VALUE), nowNanos);
        smoothedRttMicros = smoothedRttMicros < 0 ? rttMicros : (7 * smoothedRttMicros + rttMicros) / 8;
    }

    private void endSlowStart(long nowNanos) {
        Phase was = phase;
        phase = Phase.AVOIDANCE;
        if (was == Phase.REGROWTH) {
            long length = Math.max(nowNanos - slowdownStartNanos, rttNanos());
            nextSlowdownNanos = nowNanos + (quickSlowdowns ? QUICK_SLOWDOWN_INTERVAL_FACTOR : SLOWDOWN_INTERVAL_FACTOR) * length;
        } else if (nextSlowdownNanos == NEVER) {
            nextSlowdownNanos = nowNanos + INITIAL_SLOWDOWN_DELAY_RTTS * rttNanos();
        }
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
            double delivered = 0;
            if (lossBoundUntilNanos == NEVER || nowNanos >= lossBoundUntilNanos) {
                for (double rate : recentRoundRates) {
                    delivered = Math.max(delivered, rate);
                }
            }
            ssthresh = Math.max((double) MIN_CWND * mss, Math.max(fits, delivered * held / 1e6));
        }
        cwnd = (double) MIN_CWND * mss;
        phase = Phase.SLOWDOWN;
        slowdownStartNanos = nowNanos;
        nextSlowdownNanos = NEVER;
        slowdowns++;
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
            if (!congestiveLoss()) {
                randomLosses++;
                return false;
            }
            if (delay.queuingMicros() <= effectiveTargetMicros()) {
                lossBoundUntilNanos = nowNanos + Math.max(LOSS_BOUND_NANOS, LossClassifier.PEAK_QUEUE_ROUNDS * rttNanos());
            }
        }
        cwnd = Math.max(cwnd / 2, (double) MIN_CWND * mss);
        lastReductionNanos = nowNanos;
        if (phase != Phase.AVOIDANCE) {
            endSlowStart(nowNanos);
        }
        return true;
    }

    /** Whether a loss now is congestion's ({@link LossClassifier}). */
    boolean congestiveLoss() {
        return losses.isCongestive(delay.queuingMicros(), effectiveTargetMicros());
    }

    /** How often {@link #competitionAware} took a queue for someone else's and dropped to its minimum window. */
    public long yields() {
        return competitors.yields();
    }

    /** Yields that the drained queue behind them showed to be false alarms, and that ended early. */
    public long falseAlarms() {
        return competitors.falseAlarms();
    }

    /** Losses {@link #onLoss} took for random ones and did not answer. */
    public long randomLosses() {
        return randomLosses;
    }

    @Override
    public void onTimeout(long nowNanos) {
        if (phase == Phase.SLOWDOWN) {
            phase = Phase.REGROWTH;
        } else {
            ssthresh = Math.max(cwnd / 2, (double) MIN_CWND * mss);
            if (phase == Phase.AVOIDANCE) {
                // regrow to half the window; the slowdown schedule carries on from the regrowth's end
                slowdownStartNanos = nowNanos;
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
        return slowdowns;
    }

    private long rttNanos() {
        return smoothedRttMicros > 0 ? smoothedRttMicros * 1000 : 100_000_000L;
    }

    /**
     * How long a yield holds: {@link #YIELD_HOLD_NANOS}, or {@link #YIELD_HOLD_ROUNDS} round trips of the
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
