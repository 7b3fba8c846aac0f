package io.ferry.transport.ledbat.cc;

import io.ferry.transport.ledbat.sim.Bottleneck;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static io.ferry.transport.ledbat.sim.Bottleneck.MS;
import static io.ferry.transport.ledbat.sim.Bottleneck.SECOND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each of the six TCP-family controllers moves 8 MB over a simulated 10 Mbit/s, 50 ms path with a
 * queue of one bandwidth-delay product: clean, and with 1 % random loss each way. Bounds are loose:
 * the point is that every controller completes and uses the link, not how well.
 */
class CongestionControlTransferTest {
    private static final long RATE = 1_250_000;
    private static final int BYTES = 8 << 20;

    @ParameterizedTest
    @ValueSource(strings = {"newreno", "cubic", "highspeed", "vegas", "westwood+", "bbr"})
    void completesATransferOverACleanLinkUsingMostOfIt(String name) {
        try (Bottleneck path = new Bottleneck(21, name, RATE, 25 * MS, RATE / 20, 0, BYTES)) {
            long start = path.pair.events.now();
            assertTrue(path.runToEnd(120 * SECOND), name + " did not finish");
            double seconds = (path.pair.events.now() - start) / 1e9;
            double use = BYTES / (RATE * seconds);
            System.out.printf("%-10s clean 10 Mbit/s, 50 ms: 8 MB in %.2f s, link use %.2f%n", name, seconds, use);
            assertEquals(BYTES, path.pair.server.receivedBytes());
            assertEquals(name, path.pair.client.connection().pathStats().congestionControl());
            assertTrue(use > 0.7, name + " used " + use + " of the link");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"newreno", "cubic", "highspeed", "vegas", "westwood+", "bbr"})
    void completesATransferThroughOnePercentLossEachWay(String name) {
        try (Bottleneck path = new Bottleneck(22, name, RATE, 25 * MS, RATE / 20, 0.01, BYTES)) {
            long start = path.pair.events.now();
            assertTrue(path.runToEnd(600 * SECOND), name + " did not finish");
            double seconds = (path.pair.events.now() - start) / 1e9;
            double use = BYTES / (RATE * seconds);
            System.out.printf("%-10s 1 %% loss, 10 Mbit/s, 50 ms: 8 MB in %.2f s, link use %.2f%n", name, seconds, use);
            assertEquals(BYTES, path.pair.server.receivedBytes());
            assertTrue(use > 0.05, name + " used " + use + " of the link");
        }
    }
}
