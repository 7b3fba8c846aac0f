package io.ferry.transport.ledbat.cc;

import io.ferry.transport.ledbat.sim.Bottleneck;
import org.junit.jupiter.api.Test;

import static io.ferry.transport.ledbat.sim.Bottleneck.MS;
import static io.ferry.transport.ledbat.sim.Bottleneck.SECOND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VegasTest {

    /** 10 Mbit/s, 50 ms, a queue of 300 KB (240 ms) that a loss-based flow would fill. */
    @Test
    void onABottleneckItKeepsBetweenAlphaAndBetaPacketsQueuedAndTheLinkFull() {
        try (Bottleneck path = new Bottleneck(3, CongestionControls.VEGAS, 1_250_000, 25 * MS, 300_000, 0, 64 << 20)) {
            path.runFor(10 * SECOND);
            Vegas vegas = path.controller();
            long deliveredBefore = path.pair.server.receivedBytes();
            double queued = 0;
            double diff = 0;
            int samples = 0;
            int diffInBand = 0;
            for (int i = 0; i < 200; i++) {
                path.runFor(50 * MS);
                queued += path.queuedPackets();
                diff += vegas.lastDiffPackets();
                samples++;
                if (vegas.lastDiffPackets() >= Vegas.ALPHA - 1 && vegas.lastDiffPackets() <= Vegas.BETA + 1) {
                    diffInBand++;
                }
            }
            double use = (path.pair.server.receivedBytes() - deliveredBefore) / (path.rate * 10.0);
            System.out.printf("vegas on 10 Mbit/s, 50 ms: link use %.3f, mean queue %.2f packets, mean Diff %.2f, %d of %d Diffs within [alpha - 1, beta + 1]%n",
                    use, queued / samples, diff / samples, diffInBand, samples);
            assertTrue(queued / samples >= 1 && queued / samples <= Vegas.BETA + 1,
                    "a queue of alpha to beta packets, not the buffer: " + queued / samples);
            assertEquals(3, diff / samples, 1.5, "mean Diff between alpha and beta");
            assertTrue(diffInBand >= 0.9 * samples, diffInBand + " of " + samples);
            assertTrue(use > 0.9, "link use " + use);
            assertEquals(path.baseRttNanos(), vegas.baseRttNanos(), 3 * MS, "BaseRTT is the path's");
        }
    }

    @Test
    void slowStartEndsOnceMoreThanGammaPacketsAreQueued() {
        try (Bottleneck path = new Bottleneck(4, CongestionControls.VEGAS, 1_250_000, 25 * MS, 300_000, 0, 64 << 20)) {
            Vegas vegas = path.controller();
            long end = path.pair.events.now() + 5 * SECOND;
            while (vegas.inSlowStart() && path.pair.events.now() < end) {
                path.runFor(MS);
            }
            assertTrue(!vegas.inSlowStart(), "slow start ended");
            long bdp = path.rate * path.baseRttNanos() / SECOND;
            assertTrue(vegas.cwndBytes() < 2 * bdp, "left slow start near the BDP (" + bdp + "), not at a full buffer: " + vegas.cwndBytes());
            assertTrue(path.pair.clientToServer.packetsDropped() == 0, "no loss was needed to end it");
        }
    }
}
