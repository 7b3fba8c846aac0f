package io.ferry.transport.ledbat.cc;

import io.ferry.transport.ledbat.sim.Bottleneck;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.ferry.transport.ledbat.sim.Bottleneck.MS;
import static io.ferry.transport.ledbat.sim.Bottleneck.SECOND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** BBR v1 alone on a simulated 10 Mbit/s bottleneck with a 50 ms RTT and a deep (240 ms) queue. */
class BbrTest {
    private static final long RATE = 1_250_000;

    private static Bottleneck path(long seed) {
        return new Bottleneck(seed, CongestionControls.BBR, RATE, 25 * MS, 300_000, 0, 128 << 20);
    }

    @Test
    void goesFromStartupThroughDrainToProbeBwAndItsBandwidthEstimateConvergesToTheBottleneckRate() {
        try (Bottleneck path = path(11)) {
            Bbr bbr = path.controller();
            List<Bbr.State> states = new ArrayList<>(List.of(bbr.state()));
            for (int i = 0; i < 5000; i++) {
                path.runFor(MS);
                if (bbr.state() != states.get(states.size() - 1)) {
                    states.add(bbr.state());
                }
            }
            assertEquals(List.of(Bbr.State.STARTUP, Bbr.State.DRAIN, Bbr.State.PROBE_BW), states.subList(0, Math.min(3, states.size())));
            assertEquals(Bbr.State.PROBE_BW, bbr.state());
            double payloadRate = RATE * (double) (path.packetSize - 20) / path.packetSize;
            System.out.printf("bbr: BtlBw %.0f B/s (payload rate of the link %.0f), RTprop %.1f ms, states %s%n",
                    bbr.bottleneckBandwidthBytesPerSecond(), payloadRate, bbr.rtPropNanos() / 1e6, states);
            assertEquals(payloadRate, bbr.bottleneckBandwidthBytesPerSecond(), 0.05 * payloadRate);
            assertEquals(path.baseRttNanos(), bbr.rtPropNanos(), 0.05 * path.baseRttNanos());
        }
    }

    @Test
    void inProbeBwThePacingGainCyclesFiveQuartersThreeQuartersAndSixPhasesOfOneAndTheQueueStaysSmall() {
        try (Bottleneck path = path(12)) {
            Bbr bbr = path.controller();
            path.runFor(3 * SECOND);
            assertEquals(Bbr.State.PROBE_BW, bbr.state());
            List<Double> gains = new ArrayList<>();
            List<Long> probeStarts = new ArrayList<>();
            double gain = -1;
            path.pair.clientToServer.resetQueueStats();
            long deliveredBefore = path.pair.server.receivedBytes();
            for (int i = 0; i < 6000; i++) {
                path.runFor(MS);
                if (bbr.state() != Bbr.State.PROBE_BW) {
                    continue;
                }
                if (bbr.pacingGain() != gain) {
                    gain = bbr.pacingGain();
                    gains.add(gain);
                    if (gain == 1.25) {
                        probeStarts.add(path.pair.events.now());
                    }
                }
            }
            for (int i = 0; i + 1 < gains.size(); i++) {
                double next = gains.get(i) == 1.25 ? 0.75 : gains.get(i) == 0.75 ? 1.0 : 1.25;
                assertEquals(next, gains.get(i + 1), "gain sequence " + gains);
            }
            assertTrue(probeStarts.size() >= 10, "cycles in 6 s: " + probeStarts.size());
            long rtProp = bbr.rtPropNanos();
            double meanCycle = (probeStarts.get(probeStarts.size() - 1) - probeStarts.get(0)) / (double) (probeStarts.size() - 1);
            System.out.printf("bbr: mean gain cycle %.1f ms = %.2f RTprop; average queue %.1f ms, max %.1f ms; link use %.3f%n", meanCycle / 1e6,
                    meanCycle / rtProp, path.pair.clientToServer.averageQueueNanos() / 1e6, path.pair.clientToServer.maxQueueNanos() / 1e6,
                    (path.pair.server.receivedBytes() - deliveredBefore) / (RATE * 6.0));
            assertEquals(8, meanCycle / rtProp, 1.5, "eight phases of about RTprop each");
            assertTrue(path.pair.clientToServer.averageQueueNanos() < path.baseRttNanos() / 2,
                    "the queue stays well below one RTT (the buffer holds 240 ms): " + path.pair.clientToServer.averageQueueNanos() / 1e6 + " ms");
            assertTrue((path.pair.server.receivedBytes() - deliveredBefore) / (RATE * 6.0) > 0.9, "and the link stays full");
        }
    }

    @Test
    void entersProbeRttTenSecondsAfterTheMinimumRttWasLastSeenAndRemeasuresIt() {
        try (Bottleneck path = path(13)) {
            Bbr bbr = path.controller();
            path.runFor(3 * SECOND);
            assertEquals(0, bbr.probeRttEntries());
            long oldRtProp = bbr.rtPropNanos();
            // from now on every RTT sample is 10 ms above the minimum, which is no longer confirmed
            path.pair.clientToServer.setExtraDelay(10 * MS);
            long changed = path.pair.events.now();
            long lastSeen = bbr.rtPropStampNanos();
            while (bbr.state() != Bbr.State.PROBE_RTT && path.pair.events.now() < changed + 15 * SECOND) {
                lastSeen = bbr.rtPropStampNanos();
                path.runFor(MS);
            }
            // the client's clock is the simulation's, so the stamp and the simulation's time compare
            double after = (path.pair.events.now() - lastSeen) / 1e9;
            assertEquals(Bbr.State.PROBE_RTT, bbr.state());
            assertTrue(lastSeen <= changed + path.baseRttNanos() + 10 * MS, "the old minimum was last seen before the path got longer");
            assertEquals(10.1, after, 0.15, "ProbeRTT " + after + " s after the minimum RTT was last seen");
            long entered = path.pair.events.now();
            long minCwnd = Long.MAX_VALUE;
            while (bbr.state() == Bbr.State.PROBE_RTT) {
                minCwnd = Math.min(minCwnd, bbr.cwndBytes());
                path.runFor(MS);
            }
            long held = path.pair.events.now() - entered;
            assertEquals((long) Bbr.MIN_PIPE_PACKETS * (path.packetSize - 20), minCwnd, "four packets in flight");
            assertTrue(held >= Bbr.PROBE_RTT_DURATION_NANOS && held < SECOND, "ProbeRTT held " + held / 1e6 + " ms");
            assertEquals(Bbr.State.PROBE_BW, bbr.state());
            assertEquals(oldRtProp + 10 * MS, bbr.rtPropNanos(), 2 * MS, "RTprop re-measured on the longer path");
        }
    }
}
