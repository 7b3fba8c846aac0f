package io.ferry.bench.accuracy;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.emulator.LinkStatistics;
import io.ferry.bench.netns.RootAccess;
import io.ferry.bench.netns.Topology;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The TUN emulator between two namespaces delivers the RTT, rate and loss it is asked for, measured
 * with real UDP and TCP traffic between the namespaces. Needs root; skips with the reason otherwise.
 */
class TunEmulatorAccuracyTest {

    @BeforeAll
    static void needsRoot() {
        RootAccess.missing().ifPresent(reason -> System.out.println("SKIPPED TunEmulatorAccuracyTest: " + reason));
        assumeTrue(RootAccess.available(), () -> "skipped: " + RootAccess.missing().orElse(""));
    }

    @Test
    void tunEmulatorMatchesTheAskedRttRateAndLossWithinAFewPercent() throws Exception {
        LinkModel model = new LinkModel(0.10, 20_000_000, 100_000, Duration.ofMillis(50), 7);
        List<Measurement> results;
        LinkStatistics forward;
        try (Topology topology = Topology.emulated(model, model.withSeed(8));
             Route route = Route.kernel()) {
            results = new AccuracyCheck(topology.clientHost(), topology.serverHost(), route, model, 2.0).run();
            topology.emulator().orElseThrow().checkHealthy();
            forward = topology.emulator().orElseThrow().forward().statistics();
        }
        String table = AccuracyCheck.markdown(results);
        System.out.println("TUN emulator accuracy (" + model.describe() + "):\n" + table + "client-to-server counters: " + forward);
        for (Measurement m : results) {
            assertTrue(m.passed(), m.name() + " is off: " + m.deviation() + "\n" + table);
        }
    }
}
