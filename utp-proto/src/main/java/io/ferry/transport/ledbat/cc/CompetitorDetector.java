package io.ferry.transport.ledbat.cc;

/**
 * Ferry's LEDBAT ({@link LedbatPlusPlus#competitionAware}) telling someone else's queue from its own, once
 * per round trip, and deciding when to yield (drop to the minimum window, TCP-LP's reaction) and when to
 * take the link back. Two signs raise a yield once the flow has settled in congestion avoidance: a queue
 * standing above the target through {@value #COMPETITION_ROUNDS} round trips despite our own decrease (or
 * far above it through one), and our decreases growing round after round (a newcomer in slow start whose
 * queue our decrease keeps removing). A yield raised by the second sign alone is on trial: if the queue
 * behind it stays drained, nobody took the link and the yield was a false alarm ({@link Verdict#FALSE_ALARM});
 * a regrowth after one that delivers well below the flow's typical rate behind a standing queue yields
 * again. After a yield the flow's steps stay small ({@link #stepHeld()}) for the hold and until the queue
 * has been quiet for a while.
 */
final class CompetitorDetector {

    /** What the controller does after a round trip. */
    enum Verdict {
        /** Nothing changes. */
        NONE,
        /** Drop to the minimum window: someone else's queue. */
        YIELD,
        /** The last yield was a false alarm: regrow to {@link #windowBeforeYield()}, the slowdown schedule timed from {@link #yieldNanos()}. */
        FALSE_ALARM
    }

    private static final long NEVER = Long.MIN_VALUE;

    /**
     * Round trips through which a queue above the target must stand, despite the controller's
     * own decrease, before it is taken for a competitor's and the window halves per round trip.
     */
    static final int COMPETITION_ROUNDS = 2;
    /**
     * Round trips of congestion avoidance during which a queue above the target is taken for the
     * overshoot of the slow start or regrowth before them (which the decrease removes in about one).
     */
    static final int SETTLING_ROUNDS = 3;
    /** How far above the target that queue must stand: hovering at the target is this flow's own doing. */
    static final double COMPETITION_MARGIN = 1.25;
    /**
     * A queue standing this far above the target through one round trip of congestion avoidance is
     * someone else's without waiting for {@link #COMPETITION_ROUNDS}: this flow's own steps add a
     * fraction of the target per round trip.
     */
    static final double COMPETITION_JUMP = 2.0;
    /**
     * After yielding to someone else's queue, the controller takes the link back (its fair
     * step, and growth by an eighth per round trip while the link is not full) only once the queue has
     * not stood above the target for this many round trips ...
     */
    static final int RELEASE_QUIET_ROUNDS = 4;
    /**
     * ... and for at least this long: BBR empties its queue for 200 ms and a round trip every ten
     * seconds (PROBE_RTT), which on a short path is more than the quiet rounds; climbing back into that
     * pause took a tenth of the link for a second each time.
     */
    static final long RELEASE_QUIET_NANOS = 300_000_000L;
    /** Each decrease of a round at least this many times the one before ... */
    static final double SHRINK_ACCELERATION = 1.5;
    /** ... through this many round trips in a row ... */
    static final int ACCELERATING_SHRINK_ROUNDS = 2;
    /** ... having taken at least this fraction of the window: a competitor doubling its window per round trip. */
    static final double SLOW_START_SHRINK_FRACTION = 0.1;
    /**
     * Round trips (after the first) that the queue must stay drained behind a yield raised only by
     * accelerating decreases for it to count as a false alarm: a newcomer doubling from a tenth of the
     * link shows its own queue within four.
     */
    static final int FALSE_ALARM_ROUNDS = 6;
    /**
     * A yield this soon after the last false alarm ended gets the full hold: a competitor whose window
     * does not fill the link (CUBIC after HyStart ended its slow start early) shows its queue again
     * within a few round trips of our regrowth.
     */
    static final long FALSE_ALARM_SPACING_NANOS = 1_000_000_000L;
    /** ... or this many round trips, if longer. */
    static final int FALSE_ALARM_SPACING_ROUNDS = 20;
    /**
     * Round trips of congestion avoidance after the regrowth that follows a false alarm during which
     * a rate below {@link #PROBATION_RATE_FRACTION} of the flow's typical rate before (an average of
     * its settled rounds), with the queue at least half the aim, {@value #PROBATION_SHORT_ROUNDS}
     * rounds in a row, is taken for a competitor (a newcomer whose slow start ended short of the path's
     * capacity, which our own decrease would otherwise share the link with).
     */
    static final int FALSE_ALARM_PROBATION_ROUNDS = 16;
    /** See {@link #FALSE_ALARM_PROBATION_ROUNDS}. */
    static final double PROBATION_RATE_FRACTION = 0.75;
    /** See {@link #FALSE_ALARM_PROBATION_ROUNDS}. */
    static final int PROBATION_SHORT_ROUNDS = 3;
    /**
     * Behind a yield, a queue that stands above this fraction of the target (the level below which the
     * link counts as not full) ...
     */
    static final double FALSE_ALARM_QUEUE_FRACTION = 0.25;
    /**
     * ... and above this is someone else's: an emulated or virtualised path reads a millisecond or
     * two of queue even under two packets of ours.
     */
    static final long FALSE_ALARM_QUEUE_MICROS = 2_000;

    private final int mss;
    private long yields;
    private long falseAlarms;
    private boolean unconfirmedYield;
    private double windowBeforeYield;
    private long yieldNanos = NEVER;
    private int roundsSinceYield;
    private int drainedRoundsSinceYield;
    private int queuedRoundsSinceYield;
    private long lastFalseAlarmNanos = NEVER;
    private int probationRounds;
    private int shortRounds;
    private double rateAtRelease;
    private double typicalRate;
    private int roundsAboveTarget;
    private boolean yielding;
    private boolean stepHeld;
    private long holdUntilNanos = NEVER;
    private int quietRounds;
    private long quietSinceNanos;
    private double roundStartCwnd;
    private double lastShrink;
    private double shrinkStartCwnd;
    private int acceleratingShrinks;
    private int roundsInAvoidance;

    CompetitorDetector(int mss) {
        this.mss = mss;
    }

    /**
     * A round trip ended.
     *
     * @param inAvoidance     whether the controller is in congestion avoidance
     * @param cwnd            the window now, in bytes
     * @param standingQueue   the queue that stood through the round (its smallest sample), microseconds
     * @param target          the target queuing delay in force, microseconds
     * @param aim             the queue the controller's steps aim at, microseconds
     * @param roundRate       what the round delivered, bytes per second
     * @param nowNanos        the current time
     * @param holdNanos       how long a yield holds
     * @param rttNanos        the smoothed round-trip time
     */
    Verdict endRound(boolean inAvoidance, double cwnd, long standingQueue, double target, double aim, double roundRate,
                     long nowNanos, long holdNanos, long rttNanos) {
        if (inAvoidance && !stepHeld && roundsInAvoidance > SETTLING_ROUNDS) {
            // what a round delivers when this flow has the share it settled at: the largest rate
            // seen reads well above the link's when acknowledgements arrive bunched
            typicalRate = typicalRate == 0 ? roundRate : typicalRate + (roundRate - typicalRate) / 8;
        }
        // a competitor in slow start: our decrease, which removes the queue it adds, grows round by round
        double shrink = (roundStartCwnd - cwnd) / mss;
        acceleratingShrinks = inAvoidance && shrink > 0 && lastShrink > 0 && shrink >= SHRINK_ACCELERATION * lastShrink
                ? acceleratingShrinks + 1 : 0;
        if (acceleratingShrinks == 1) {
            shrinkStartCwnd = roundStartCwnd + lastShrink * mss;
        }
        lastShrink = shrink;
        roundStartCwnd = cwnd;
        // counted in congestion avoidance only, once the overshoot of the slow start or regrowth that
        // led there had its rounds to go: that queue is our own, and no competitor's
        roundsInAvoidance = inAvoidance ? roundsInAvoidance + 1 : 0;
        boolean settled = roundsInAvoidance > SETTLING_ROUNDS;
        roundsAboveTarget = settled && standingQueue > COMPETITION_MARGIN * target ? roundsAboveTarget + 1 : 0;
        if (settled && standingQueue > COMPETITION_JUMP * target) {
            // more than our own steps can stand up in congestion avoidance: someone else's, at once
            roundsAboveTarget = Math.max(roundsAboveTarget, COMPETITION_ROUNDS);
        }
        boolean queueSign = roundsAboveTarget >= COMPETITION_ROUNDS;
        if (probationRounds > 0 && inAvoidance && roundsInAvoidance > 1) {
            // back from a false alarm: a link we fill again should deliver what it did; a good deal
            // less, with the queue at the aim, is a competitor that does not fill the link alone
            probationRounds--;
            boolean shortOfRate = standingQueue >= aim / 2 && roundRate < PROBATION_RATE_FRACTION * rateAtRelease;
            // rounds in a row: a stall of the path takes a round's rate down too
            shortRounds = shortOfRate ? shortRounds + 1 : 0;
            if (shortRounds >= PROBATION_SHORT_ROUNDS) {
                roundsAboveTarget = Math.max(roundsAboveTarget, COMPETITION_ROUNDS);
                queueSign = true;
                probationRounds = 0;
            }
        }
        if (settled && acceleratingShrinks >= ACCELERATING_SHRINK_ROUNDS
                && shrinkStartCwnd - cwnd >= SLOW_START_SHRINK_FRACTION * shrinkStartCwnd) {
            roundsAboveTarget = Math.max(roundsAboveTarget, COMPETITION_ROUNDS);
        }
        Verdict verdict = Verdict.NONE;
        if (unconfirmedYield && falseAlarm(standingQueue, target, nowNanos, rttNanos)) {
            verdict = Verdict.FALSE_ALARM;
        }
        if (roundsAboveTarget >= COMPETITION_ROUNDS) {
            if (!yielding && !stepHeld) {
                // someone else's queue: TCP-LP's reaction, the minimum window, and no climbing back
                // for the hold time however empty the link looks
                unconfirmedYield = !queueSign;
                windowBeforeYield = Math.max(cwnd, shrinkStartCwnd);
                yieldNanos = nowNanos;
                roundsSinceYield = 0;
                drainedRoundsSinceYield = 0;
                queuedRoundsSinceYield = 0;
                holdUntilNanos = nowNanos + holdNanos;
                yields++;
                verdict = Verdict.YIELD;
            } else if (!yielding) {
                holdUntilNanos = Math.max(holdUntilNanos, nowNanos + holdNanos);
                verdict = Verdict.YIELD;
            }
            yielding = true;
            stepHeld = true;
        } else if (standingQueue <= target) {
            yielding = false;
        }
        // the queue no longer stands above the target: whoever held it there left, was a scavenger
        // that settled at its own target, or a TCP flow that does not fill the link (yet); past the
        // hold, and once that lasted a few round trips, climb back
        quietRounds = roundsAboveTarget == 0 ? quietRounds + 1 : 0;
        if (quietRounds == 1) {
            quietSinceNanos = nowNanos;
        }
        if (quietRounds >= RELEASE_QUIET_ROUNDS && nowNanos - quietSinceNanos >= RELEASE_QUIET_NANOS && nowNanos >= holdUntilNanos) {
            stepHeld = false;
        }
        return verdict;
    }

    /**
     * After a yield raised only by our accelerating decreases: a newcomer in slow start shows its own
     * queue within a few round trips of our leaving, while our own noise (a stall of the path that
     * lifted the delay for a moment) leaves the link empty behind us. A queue that stays below a
     * quarter of the target (or {@value #FALSE_ALARM_QUEUE_MICROS} us, if that is more) for
     * {@value #FALSE_ALARM_ROUNDS} round trips ends the hold, and the window regrows by doubling to what
     * it was, as after a slowdown; a queue above that through two round trips, or above half the target
     * through one, confirms the yield. Returns whether this round ended the yield as a false alarm.
     */
    private boolean falseAlarm(long standingQueue, double target, long nowNanos, long rttNanos) {
        if (++roundsSinceYield == 1) {
            return false; // our own flight from before the yield is still draining
        }
        if (standingQueue > Math.max(FALSE_ALARM_QUEUE_MICROS, target * FALSE_ALARM_QUEUE_FRACTION)) {
            // a newcomer's queue stands and grows (a scavenger's own slowdown may drain it again for a
            // round); a stall of the path lifts one round a little
            if (++queuedRoundsSinceYield >= 2 || standingQueue > 2 * target * FALSE_ALARM_QUEUE_FRACTION
                    || roundsSinceYield > 2 * FALSE_ALARM_ROUNDS) {
                unconfirmedYield = false;
            }
            return false;
        }
        queuedRoundsSinceYield = 0;
        if (++drainedRoundsSinceYield < FALSE_ALARM_ROUNDS) {
            return false;
        }
        unconfirmedYield = false;
        if (lastFalseAlarmNanos != NEVER && yieldNanos - lastFalseAlarmNanos < Math.max(FALSE_ALARM_SPACING_NANOS, FALSE_ALARM_SPACING_ROUNDS * rttNanos)) {
            return false; // twice in a row: a competitor that does not fill the link; the full hold this time
        }
        lastFalseAlarmNanos = nowNanos;
        falseAlarms++;
        probationRounds = FALSE_ALARM_PROBATION_ROUNDS;
        shortRounds = 0;
        rateAtRelease = typicalRate;
        stepHeld = false;
        yielding = false;
        holdUntilNanos = nowNanos;
        roundsAboveTarget = 0;
        acceleratingShrinks = 0;
        lastShrink = 0;
        return true;
    }

    /** Whether the flow's steps are held small after a yield (GAIN only, no growth into an empty link). */
    boolean stepHeld() {
        return stepHeld;
    }

    /** Whether a competitor's queue stands above the target now: the controller halves per round trip. */
    boolean yielding() {
        return yielding;
    }

    /** The window before the last yield (or the one before the decreases that raised it). */
    double windowBeforeYield() {
        return windowBeforeYield;
    }

    /** When the last yield began. */
    long yieldNanos() {
        return yieldNanos;
    }

    long yields() {
        return yields;
    }

    long falseAlarms() {
        return falseAlarms;
    }
}
