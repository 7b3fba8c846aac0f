package io.ferry.bench.jmh;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.Aggregator;
import org.openjdk.jmh.results.ResultRole;
import org.openjdk.jmh.results.ThroughputResult;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fairness benchmark's counters, put through JMH's own result classes as JMH's generated code does
 * for {@code OPERATIONS} counters, give the per-window figures for any number of iterations.
 */
class FairnessWindowTest {

    private static final double LINK_MBIT = 100;

    /** Three windows as on the 100 Mbit/s link: one TCP flow joined, the scavenger yielding. */
    private static final List<FairnessWindow> WINDOWS = List.of(
            new FairnessWindow(5.0004, new double[]{6.5, 88.0}),
            new FairnessWindow(5.0002, new double[]{1.7, 93.1}),
            new FairnessWindow(5.0011, new double[]{0.9, 94.2}));

    @Test
    void everyFigureAggregatesToTheMeanOfTheWindowsForOneAndForThreeIterations() {
        for (int iterations : new int[]{1, 3}) {
            List<FairnessWindow> windows = WINDOWS.subList(0, iterations);
            check(windows, "scavengerMbitPerS", s -> s.scavengerMbitPerS, FairnessWindow::scavengerMbitPerS, 0, LINK_MBIT);
            check(windows, "tcpMbitPerS", s -> s.tcpMbitPerS, FairnessWindow::tcpMbitPerS, 0, LINK_MBIT);
            check(windows, "scavengerShare", s -> s.scavengerShare, FairnessWindow::scavengerShare, 0, 1);
            check(windows, "jainIndex", s -> s.jainIndex, FairnessWindow::jain, 0.5, 1);
        }
    }

    @Test
    void aWindowsFiguresAreInTheirRanges() {
        FairnessWindow fourFlows = new FairnessWindow(5, new double[]{2, 20, 25, 23, 24});
        assertEquals(92, fourFlows.tcpMbitPerS(), 1e-9);
        assertEquals(20, fourFlows.tcpSlowestMbitPerS(), 1e-9);
        assertEquals(25, fourFlows.tcpFastestMbitPerS(), 1e-9);
        assertEquals(2 / 94.0, fourFlows.scavengerShare(), 1e-9);
        assertTrue(fourFlows.jain() >= 1 / 5.0 && fourFlows.jain() <= 1, "Jain in [1/n, 1]: " + fourFlows.jain());
        assertEquals(1, new FairnessWindow(5, new double[]{10, 10}).jain(), 1e-9, "equal flows: Jain 1");
    }

    /**
     * Feeds each window's counter to a {@link ThroughputResult} with the invocation's time (the window's,
     * plus the few microseconds JMH's timer adds), aggregates them with JMH's own iteration aggregator
     * and compares with the mean of the windows' figures.
     */
    private static void check(List<FairnessWindow> windows, String name, ToDoubleFunction<ScavengerFairnessBenchmark.Shares> counter,
                              ToDoubleFunction<FairnessWindow> figure, double low, double high) {
        List<ThroughputResult> results = new ArrayList<>();
        double sum = 0;
        for (FairnessWindow w : windows) {
            ScavengerFairnessBenchmark.Shares shares = new ScavengerFairnessBenchmark.Shares();
            shares.record(w);
            long invocationNanos = (long) (w.seconds() * 1e9) + 40_000;
            results.add(new ThroughputResult(ResultRole.SECONDARY, name, counter.applyAsDouble(shares), invocationNanos, TimeUnit.SECONDS));
            sum += figure.applyAsDouble(w);
        }
        double mean = sum / windows.size();
        double reported = Jmh.iterationAggregate(results).getScore();
        assertEquals(mean, reported, Math.abs(mean) * 1e-4, name + " over " + windows.size() + " iteration(s)");
        assertTrue(reported >= low && reported <= high, name + " = " + reported + " is in [" + low + ", " + high + "]");
    }

    /** Reaches JMH's iteration aggregator for throughput results (protected in JMH). */
    private static final class Jmh extends ThroughputResult {
        private Jmh() {
            super(ResultRole.SECONDARY, "probe", 0, 1, TimeUnit.SECONDS);
        }

        static ThroughputResult iterationAggregate(List<ThroughputResult> results) {
            Aggregator<ThroughputResult> aggregator = new Jmh().getIterationAggregator();
            return aggregator.aggregate(results);
        }
    }
}
