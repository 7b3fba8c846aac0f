package io.ferry.transport.ledbat.cc;

/**
 * The tunables of {@link LedbatPlusPlus}, in one place with why each has its value: the draft's
 * (draft-irtf-iccrg-ledbat-plus-plus-06) and those of Ferry's default, each chosen by measurement
 * (docs/ledbat-scavenger.md). The competitor detector's and the loss classifier's live in
 * {@link CompetitorDetector} and {@link LossClassifier}.
 */
final class LedbatTuning {

    private LedbatTuning() {
    }

    /** Smallest window, in packets (RFC 6817 MIN_CWND; also the window of a slowdown). */
    static final int MIN_CWND = 2;
    /** Initial window, in packets. */
    static final int INIT_CWND = 2;
    /** Largest divisor of the dynamic GAIN. */
    static final int MAX_GAIN_DIVISOR = 16;
    /** Slow start ends when the queuing delay exceeds this fraction of the target. */
    static final double SLOW_START_EXIT_FRACTION = 0.75;
    /**
     * Where {@link LedbatPlusPlus#competitionAware}'s regrowth after a slowdown starts, as a fraction of the window
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
     * The spacing of {@link LedbatPlusPlus#competitionAware}'s slowdowns: they only refresh the base delay once the
     * initial one has let a latecomer learn it, so a cost of about 3 % rather than 10 % is enough.
     */
    static final int QUICK_SLOWDOWN_INTERVAL_FACTOR = 30;
    /** The smallest target the RTT-tied rule uses: below it, timer and scheduling noise dominate. */
    static final long MIN_ADAPTIVE_TARGET_MICROS = 5_000;

    /** Below this fraction of the target, a queue that stood through a round trip means the link is not full. */
    static final double STILL_EMPTY_FRACTION = 0.25;
    /** {@link LedbatPlusPlus#competitionAware}'s growth per round trip, as a fraction of the window, while the link is not full. */
    static final double EMPTY_GROWTH = 0.125;
    /** A quick slowdown ends when the queuing delay is at most this, or {@link #DRAINED_FRACTION} of the target. */
    static final long DRAINED_MICROS = 1_000;
    /** See {@link #DRAINED_MICROS}. */
    static final double DRAINED_FRACTION = 0.125;

    /**
     * {@link LedbatPlusPlus#competitionAware}'s additive step per round trip is this many times the square root of
     * its window in packets (see {@link LedbatPlusPlus#additiveStepPackets}).
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
}
