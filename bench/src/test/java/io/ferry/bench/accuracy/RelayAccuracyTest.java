package io.ferry.bench.accuracy;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.netns.Host;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The no-root UDP relay delivers the RTT, rate and loss it is asked for, measured with real UDP flows on loopback. */
class RelayAccuracyTest {

    @Test
    void relayMatchesTheAskedRttRateAndLossWithinAFewPercent() throws Exception {
        LinkModel model = new LinkModel(0.10, 20_000_000, 100_000, Duration.ofMillis(50), 42);
        List<Measurement> results;
        try (Route route = Route.relay(model)) {
            results = new AccuracyCheck(Host.loopback(), Host.loopback(), route, model, 2.0).run();
        }
        String table = AccuracyCheck.markdown(results);
        System.out.println("UdpRelay accuracy (" + model.describe() + "):\n" + table);
        for (Measurement m : results) {
            assertTrue(m.passed(), m.name() + " is off: " + m.deviation() + "\n" + table);
        }
    }
}
