package io.ferry.bench.jmh;

import io.ferry.bench.report.Stats;

import java.util.Arrays;

/**
 * One measured window of {@link ScavengerFairnessBenchmark}: how long it lasted and each flow's goodput
 * in it (the scavenger's first, then the TCP flows'), with the figures the benchmark reports.
 *
 * <p>JMH reports an {@code OPERATIONS} auxiliary counter as the counter divided by the iteration's time
 * and averages that over iterations; {@link #timeWeighted} is the value to put in such a counter so that
 * JMH shows the figure itself: the figure times the window's length in the benchmark's output unit
 * (seconds). The window starts as the iteration does and ends with its last invocation, so the two
 * times agree to within the few microseconds around them.
 */
record FairnessWindow(double seconds, double[] mbitPerSecond) {

    FairnessWindow {
        if (!(seconds > 0) || mbitPerSecond.length < 2) {
            throw new IllegalArgumentException("a window has a length and at least the scavenger and one TCP flow");
        }
        mbitPerSecond = mbitPerSecond.clone();
    }

    double scavengerMbitPerS() {
        return mbitPerSecond[0];
    }

    double tcpMbitPerS() {
        return Arrays.stream(mbitPerSecond, 1, mbitPerSecond.length).sum();
    }

    double tcpSlowestMbitPerS() {
        return Arrays.stream(mbitPerSecond, 1, mbitPerSecond.length).min().orElse(0);
    }

    double tcpFastestMbitPerS() {
        return Arrays.stream(mbitPerSecond, 1, mbitPerSecond.length).max().orElse(0);
    }

    /** The scavenger's part of all the goodput, in [0, 1]. */
    double scavengerShare() {
        double total = scavengerMbitPerS() + tcpMbitPerS();
        return total == 0 ? 0 : scavengerMbitPerS() / total;
    }

    /** Jain's fairness index over every flow, in [1/n, 1]. */
    double jain() {
        return Stats.jain(mbitPerSecond);
    }

    /** What an {@code OPERATIONS} counter must hold for JMH to report {@code figure} for this window. */
    double timeWeighted(double figure) {
        return figure * seconds;
    }
}
