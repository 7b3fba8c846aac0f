package io.ferry.transport.ledbat.cc;

import io.ferry.transport.ledbat.sim.Bottleneck;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.ferry.transport.ledbat.sim.Bottleneck.MS;
import static io.ferry.transport.ledbat.sim.Bottleneck.SECOND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WestwoodPlusTest {

    /**
     * 10 Mbit/s, 50 ms, a drop-tail queue of half the bandwidth-delay product: the queue overflows
     * now and then, and each time the window goes to the product of the estimated bandwidth and the
     * smallest RTT, which is the path's bandwidth-delay product.
     */
    @Test
    void afterEachLossSsthreshIsTheEstimatedBandwidthTimesTheMinimumRttWhichIsThePathsBdp() {
        long rate = 1_250_000;
        try (Bottleneck path = new Bottleneck(5, CongestionControls.WESTWOOD_PLUS, rate, 25 * MS, rate / 40, 0, 64 << 20)) {
            WestwoodPlus cc = path.controller();
            double bdp = rate * path.baseRttNanos() / 1e9;
            List<Long> ssthreshes = new ArrayList<>();
            List<Double> bdpEstimates = new ArrayList<>();
            long last = cc.ssthreshBytes();
            long end = path.pair.events.now() + 40 * SECOND;
            double bweBefore = 0;
            while (path.pair.events.now() < end) {
                bweBefore = cc.bandwidthEstimateBytesPerSecond();
                path.runFor(MS);
                if (cc.ssthreshBytes() != last) {
                    last = cc.ssthreshBytes();
                    if (path.pair.events.now() > end - 30 * SECOND) {
                        ssthreshes.add(last);
                        bdpEstimates.add(bweBefore * cc.minRttNanos() / 1e9);
                    }
                }
            }
            System.out.printf("westwood+ on 10 Mbit/s, 50 ms: BDP %.0f bytes, BWE %.0f B/s, RTTmin %.1f ms, ssthresh after the losses of the last 30 s: %s%n",
                    bdp, cc.bandwidthEstimateBytesPerSecond(), cc.minRttNanos() / 1e6, ssthreshes);
            assertTrue(ssthreshes.size() >= 2, "the shallow queue overflows: " + ssthreshes);
            for (int i = 0; i < ssthreshes.size(); i++) {
                assertEquals(bdpEstimates.get(i), ssthreshes.get(i), 0.02 * bdpEstimates.get(i), "ssthresh = BWE * RTTmin");
                assertEquals(bdp, ssthreshes.get(i), 0.1 * bdp, "ssthresh is the path's BDP");
            }
            assertEquals(rate, cc.bandwidthEstimateBytesPerSecond(), 0.1 * rate, "BWE converged to the bottleneck rate");
            assertEquals(path.baseRttNanos(), cc.minRttNanos(), 0.05 * path.baseRttNanos());
        }
    }

    @Test
    void randomLossCostsLessThanItCostsNewReno() {
        long rate = 1_250_000;
        double westwood;
        double newReno;
        try (Bottleneck path = new Bottleneck(6, CongestionControls.WESTWOOD_PLUS, rate, 25 * MS, rate / 4, 0.005, 64 << 20)) {
            path.runFor(30 * SECOND);
            westwood = path.pair.server.receivedBytes();
        }
        try (Bottleneck path = new Bottleneck(6, CongestionControls.NEWRENO, rate, 25 * MS, rate / 4, 0.005, 64 << 20)) {
            path.runFor(30 * SECOND);
            newReno = path.pair.server.receivedBytes();
        }
        System.out.printf("0.5 %% random loss, 30 s at 10 Mbit/s and 50 ms: westwood+ %.1f MB, newreno %.1f MB%n", westwood / 1e6, newReno / 1e6);
        assertTrue(westwood > 1.1 * newReno, "westwood+ " + westwood + ", newreno " + newReno);
    }
}
