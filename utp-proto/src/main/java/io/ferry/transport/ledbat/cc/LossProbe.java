package io.ferry.transport.ledbat.cc;

/**
 * Tells a buffer too shallow to show a queue from a lossy link where the delay signal cannot: after
 * round trips that kept losing packets {@link LossClassifier} took for random, the window is halved for
 * a few round trips, a test decrease. Losses that were the window's own (a shallow buffer overflowing)
 * all but stop; a lossy link's go on at the same rate. The first makes every loss congestion's for a
 * while ({@link #overflowing}), so the window is halved and then held to half of Reno's growth as behind
 * any shallow buffer; the second gives the window back and leaves losses alone for longer.
 *
 * <p>Why: behind a LAN's switch buffer of 0.1-0.3 ms (1 Gbit/s, 0.2 ms RTT) no queue reaches the
 * classifier's noise floor, so every loss read as random, and in virtual time the default controller
 * kept 89-96 % of the link beside a Reno flow while losing about 40,000 packets a second; LEDBAT++ as the
 * draft specifies it (a halving on every loss) kept 4-8 % (docs/ledbat-scavenger.md, rule 7).
 */
final class LossProbe {
    /** What a round trip's end asks of the controller. */
    enum Verdict {
        /** Nothing. */
        NONE,
        /** Halve the window and hold it there until a verdict: the test decrease. */
        CUT,
        /** The losses went on after the cut: a lossy link's. Give the window back. */
        RANDOM,
        /** The losses stopped after the cut: the window overflowed a buffer. Keep the cut. */
        OVERFLOW,
        /**
         * A loss after the cut was answered as congestion's: that decrease stands, and the measurement
         * says nothing (the losses of packets sent before it are no longer reported).
         */
        CANCELLED
    }

    /** A round trip is lossy with at least this fraction of its packets lost ... */
    static final double LOSSY_FRACTION = 0.05;
    /** ... and at least this many, none of them answered as congestion's. */
    static final int LOSSY_MIN_LOSSES = 4;
    /** Lossy round trips in a row that start a test decrease. */
    static final int LOSSY_ROUNDS = 3;
    /** Round trips after the cut that still carry losses of packets sent before it, not measured. */
    static final int SETTLE_ROUNDS = 2;
    /** Packets sent in the measurement after the cut at least (fewer say nothing: a lossy link's window is small) ... */
    static final int MEASURE_PACKETS = 48;
    /** ... within this many round trips, or the verdict is random, the one that costs least when wrong. */
    static final int MEASURE_ROUNDS = 8;
    /**
     * The losses were the window's when the lost fraction after the cut is at most this part of the one
     * before: a lossy link's fraction does not depend on the window (at 25 % loss it stays about 25 %),
     * while a window twice what a shallow buffer holds loses a third of its packets and half of it none.
     * At 25 % loss, 48 packets lose at most 2 (a fifth of 12) about once in 7,000 measurements; a wrong
     * verdict of overflow is withdrawn by {@link #RECHECK_FRACTION}.
     */
    static final double OVERFLOW_DROP = 0.2;
    /** After a verdict of random, no test decrease for this many round trips (about 3 % of a lossy link's window). */
    static final int QUIET_ROUNDS = 64;
    /** After a verdict of overflow every loss is congestion's for as long as the loss bound holds ({@link LedbatTuning#LOSS_BOUND_NANOS}) ... */
    static final long OVERFLOW_NANOS = LedbatTuning.LOSS_BOUND_NANOS;
    /**
     * ... unless, over at least {@link #CHECK_PACKETS} sent, at least this part of the fraction lost before
     * the cut is still lost though each loss halves the window: then the verdict was wrong (a lossy link
     * that happened to lose little while measured), and a window held at its minimum by random loss, the
     * draft's 71 s for 2.8 MB at 25 % loss, ends at once.
     */
    static final double RECHECK_FRACTION = 0.5;
    /** Packets sent over which the verdict of overflow is checked. */
    static final int CHECK_PACKETS = 32;

    private static final long NEVER = Long.MIN_VALUE;

    private int lossyRounds;
    /**
     * Packets sent in the last round trip: a round's losses are mostly of those, so they are counted against
     * them, not against the round's own sends, which the cut changes.
     */
    private int lastSent;
    /** Losses and the packets they are counted against, in whichever count runs: lossy rounds, the test's measurement or the overflow's check. */
    private long lost;
    private long sent;
    private double before;
    /** Round trips since the cut, -1 when no test decrease runs. */
    private int sinceCut = -1;
    private long quietUntilRound;
    private long overflowUntilNanos = NEVER;
    private long overflows;

    /**
     * A round trip ended: {@code losses} packets were declared lost and {@code sentInRound} sent in it (first
     * transmissions and retransmissions); {@code answered} whether the controller answered any loss as congestion's;
     * {@code eligible} whether it can take a test decrease now (only in congestion avoidance: a slow
     * start ends on its own).
     */
    Verdict endRound(int losses, int sentInRound, boolean answered, boolean eligible, long round, long nowNanos) {
        int against = lastSent;
        lastSent = sentInRound;
        if (sinceCut >= 0) {
            return measure(losses, against, answered, round, nowNanos);
        }
        if (overflowing(nowNanos)) {
            return check(losses, against, round);
        }
        if (!eligible || answered || losses < LOSSY_MIN_LOSSES || losses < LOSSY_FRACTION * against || round < quietUntilRound) {
            lossyRounds = 0;
            return Verdict.NONE;
        }
        if (lossyRounds++ == 0) {
            restartCount();
        }
        count(losses, against);
        if (lossyRounds < LOSSY_ROUNDS) {
            return Verdict.NONE;
        }
        before = Math.min(1, lost / (double) Math.max(1, sent));
        lossyRounds = 0;
        restartCount();
        sinceCut = 0;
        return Verdict.CUT;
    }

    /** A round trip of the test decrease: settling, then measuring until enough packets say something. */
    private Verdict measure(int losses, int against, boolean answered, long round, long nowNanos) {
        if (answered) {
            sinceCut = -1;
            quietUntilRound = round + QUIET_ROUNDS;
            return Verdict.CANCELLED;
        }
        if (++sinceCut > SETTLE_ROUNDS) {
            count(losses, against);
        }
        boolean measured = sent >= MEASURE_PACKETS;
        if (!measured && sinceCut < SETTLE_ROUNDS + MEASURE_ROUNDS) {
            return Verdict.NONE;
        }
        sinceCut = -1;
        if (measured && lost <= OVERFLOW_DROP * before * sent) {
            overflowUntilNanos = nowNanos + OVERFLOW_NANOS;
            restartCount();
            overflows++;
            return Verdict.OVERFLOW;
        }
        quietUntilRound = round + QUIET_ROUNDS;
        return Verdict.RANDOM;
    }

    /** A round trip under a verdict of overflow: withdrawn if losses go on as before the cut. */
    private Verdict check(int losses, int against, long round) {
        count(losses, against);
        if (sent < CHECK_PACKETS) {
            return Verdict.NONE;
        }
        boolean wrong = lost >= RECHECK_FRACTION * before * sent;
        restartCount();
        if (!wrong) {
            return Verdict.NONE;
        }
        overflowUntilNanos = NEVER;
        quietUntilRound = round + QUIET_ROUNDS;
        return Verdict.RANDOM;
    }

    private void count(int losses, int against) {
        lost += losses;
        sent += against;
    }

    private void restartCount() {
        lost = 0;
        sent = 0;
    }

    /** Ends a test decrease without a verdict: the controller changed the window for another reason (a timeout, a yield). */
    void cancel() {
        sinceCut = -1;
    }

    /** Whether a test decrease runs: the window is held at the cut. */
    boolean probing() {
        return sinceCut >= 0;
    }

    /** Whether a test decrease lately found the window overflowing a buffer: every loss is congestion's. */
    boolean overflowing(long nowNanos) {
        return overflowUntilNanos != NEVER && nowNanos < overflowUntilNanos;
    }

    /** Test decreases that found a buffer overflowing. */
    long overflows() {
        return overflows;
    }
}
