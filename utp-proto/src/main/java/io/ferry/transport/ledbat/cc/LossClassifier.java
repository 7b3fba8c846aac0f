package io.ferry.transport.ledbat.cc;

/**
 * Whether a loss was congestion's or a lossy link's, for a delay-based controller that must not halve
 * its window for random loss. The delay signal answers congestion before a buffer that can hold the
 * target overflows, so a loss with the queue at or below the target there is random (or a competitor's
 * burst, which the delay rule answers). Behind a buffer too shallow for that, the buffer overflows as the
 * queue peaks: a loss with a good part of the largest recent standing queue still standing is
 * congestion. A round trip that lost more than half of its packets is congestion however little queue
 * shows (a buffer of a packet or two). A loss before any queue was measured counts as congestion. Behind
 * a buffer too shallow for any queue to show, {@link LossProbe}'s test decrease tells.
 */
final class LossClassifier {
    /** At a loss, at least this fraction of the largest recent standing queue must stand for it to be congestion's ... */
    static final double SHALLOW_LOSS_FRACTION = 0.5;
    /**
     * ... and that largest queue must have been at least this long (below it, it is scheduling noise; a
     * largest single sample instead of a standing queue took 1 ms of jitter for a shallow buffer and
     * halved a 25 %-loss transfer's window again and again) ...
     */
    static final long SHALLOW_QUEUE_FLOOR_MICROS = 250;
    /** ... and at least this fraction of the target. */
    static final double SHALLOW_QUEUE_FLOOR_FRACTION = 0.0625;
    /**
     * However little queue shows, a round trip that lost more than this fraction of the packets it
     * resolved makes its losses congestion's: a buffer of a packet or two, which no delay can reveal,
     * overflows like this, and random loss rarely does.
     */
    static final double HEAVY_LOSS_FRACTION = 0.5;
    /** ... of at least this many lost packets: a small window loses half of a round trip's packets to random loss often enough. */
    static final int HEAVY_LOSS_MIN_PACKETS = 8;
    /** Round trips over which the largest standing queue is kept (two buckets of this many). */
    static final int PEAK_QUEUE_ROUNDS = 8;

    private final BucketedMax peakQueue = new BucketedMax(PEAK_QUEUE_ROUNDS);
    private final LossProbe probe = new LossProbe();
    private int roundLosses;
    private int roundSent;
    private boolean roundAnswered;
    private double lastRoundLossFraction;

    /** A packet was declared lost. */
    void onLoss() {
        roundLosses++;
    }

    /** A packet was sent (a first transmission or a retransmission). */
    void onSent() {
        roundSent++;
    }

    /** The controller answered a loss as congestion's (a test decrease only follows losses taken for random). */
    void answered() {
        roundAnswered = true;
    }

    /**
     * A round trip ended: the queue that stood through it (its smallest sample), the bytes it delivered,
     * its index (counting rounds from 0) and whether the controller could take a test decrease now.
     * Returns what {@link LossProbe} asks of the controller.
     */
    LossProbe.Verdict endRound(long standingQueueMicros, long bytesAcked, int mss, long round, boolean probeable, long nowNanos) {
        peakQueue.add(standingQueueMicros, round);
        double resolved = roundLosses + bytesAcked / (double) mss;
        lastRoundLossFraction = resolved > 0 && roundLosses >= HEAVY_LOSS_MIN_PACKETS ? roundLosses / resolved : 0;
        LossProbe.Verdict verdict = probe.endRound(roundLosses, roundSent, roundAnswered, probeable, round, nowNanos);
        roundLosses = 0;
        roundSent = 0;
        roundAnswered = false;
        return verdict;
    }

    /** Whether a test decrease runs (the controller holds its window at the cut). */
    boolean probing() {
        return probe.probing();
    }

    /** Ends a test decrease without a verdict (the controller set its window for another reason). */
    void cancelProbe() {
        probe.cancel();
    }

    /** Test decreases that found a shallow buffer overflowing. */
    long overflows() {
        return probe.overflows();
    }

    /** Whether a loss with {@code queuingMicros} of queue now (negative: none measured yet) is congestion's. */
    boolean isCongestive(long queuingMicros, double targetMicros, long nowNanos) {
        if (queuingMicros < 0 || probe.overflowing(nowNanos)) {
            return true;
        }
        // during a test decrease the rounds right after the cut resolve few packets and many losses of
        // packets sent before it: not a round that lost more than half
        if (queuingMicros > targetMicros || lastRoundLossFraction > HEAVY_LOSS_FRACTION && !probe.probing()) {
            return true;
        }
        double peak = peakQueue.get();
        if (peak > targetMicros) {
            return false;
        }
        double floor = Math.max(SHALLOW_QUEUE_FLOOR_MICROS, SHALLOW_QUEUE_FLOOR_FRACTION * targetMicros);
        return peak >= floor && queuingMicros >= SHALLOW_LOSS_FRACTION * peak;
    }

    /** The largest queue that stood through one of the last round trips. */
    double peakStandingQueueMicros() {
        return peakQueue.get();
    }
}
