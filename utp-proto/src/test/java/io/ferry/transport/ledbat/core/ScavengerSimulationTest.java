package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.cc.CongestionControls;
import io.ferry.transport.ledbat.sim.BbrLikeFlow;
import io.ferry.transport.ledbat.sim.CompetingFlow;
import io.ferry.transport.ledbat.sim.LinkParams;
import io.ferry.transport.ledbat.sim.RenoFlow;
import io.ferry.transport.ledbat.sim.SimPair;
import io.ferry.transport.ledbat.sim.TrackingAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Does the scavenger get out of the way, in virtual time? A uTP connection runs alone on a simulated
 * 10 Mbit/s bottleneck with a 150 ms drop-tail queue for ten seconds, then a simulated TCP flow joins
 * on the same queue: a Reno-like flow (fills the queue until it overflows) or a BBR-like one (keeps
 * about one base RTT of queue). Shares are judged per second of virtual time, so the tolerances hold on
 * any machine.
 */
class ScavengerSimulationTest {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    private static final long RATE = 1_250_000;
    private static final long QUEUE = RATE * 150 / 1000;
    private static final long SAMPLE = 500 * MS;

    private final TrackingAllocator alloc = new TrackingAllocator();
    private SimPair pair;
    private CompetingFlow competitor;

    @AfterEach
    void releaseEverything() {
        if (competitor != null) {
            competitor.stop();
        }
        if (pair != null) {
            pair.abortAndDrain();
        }
        pair = null;
        competitor = null;
        assertEquals(0, alloc.unreleased());
    }

    /** What the study measures: the scavenger's per-sample rate and the competitor's, after it joined. */
    private record Shares(List<Double> scavenger, List<Double> competitor) {
        /** Seconds until the scavenger's share over one second stays at or below {@code limit}; -1 if it never does. */
        double timeToYield(double limit) {
            double last = 0;
            for (int i = 0; i < scavenger.size(); i++) {
                double s = 0;
                double all = 0;
                for (int j = Math.max(0, i - 1); j <= i; j++) {
                    s += scavenger.get(j);
                    all += scavenger.get(j) + competitor.get(j);
                }
                if (all > 0 && s / all > limit) {
                    last = (i + 1) * SAMPLE / 1e9;
                    if (i == scavenger.size() - 1) {
                        return -1;
                    }
                }
            }
            return last;
        }

        double share() {
            double s = scavenger.stream().mapToDouble(Double::doubleValue).sum();
            double c = competitor.stream().mapToDouble(Double::doubleValue).sum();
            return s / (s + c);
        }
    }

    private Shares scavengerThenCompetitor(String controller, int baseRttMs,
                                           BiFunction<SimPair, Long, CompetingFlow> joining) {
        long oneWay = baseRttMs * MS / 2;
        UtpConfig config = UtpConfig.builder().allocator(alloc).congestionControl(controller).build();
        pair = new SimPair(11, LinkParams.delay(oneWay).withBottleneck(RATE, QUEUE), LinkParams.delay(oneWay), config, config);
        pair.client.sendAll(new byte[48 * 1024 * 1024], false);
        pair.connect();
        pair.events.runFor(10 * SECOND);
        long alone = pair.server.receivedBytes();
        assertTrue(alone > RATE * 6, "alone it filled the link first: " + alone + " bytes in 10 s");
        competitor = joining.apply(pair, oneWay);
        competitor.start();
        List<Double> scav = new ArrayList<>();
        List<Double> comp = new ArrayList<>();
        long lastScav = pair.server.receivedBytes();
        long lastComp = 0;
        for (int i = 0; i < 40; i++) {
            pair.events.runFor(SAMPLE);
            scav.add((double) (pair.server.receivedBytes() - lastScav));
            comp.add((double) (competitor.deliveredBytes() - lastComp));
            lastScav = pair.server.receivedBytes();
            lastComp = competitor.deliveredBytes();
        }
        return new Shares(scav, comp);
    }

    private static CompetingFlow reno(SimPair p, long oneWay) {
        return new RenoFlow(p.events, p.clientToServer, oneWay);
    }

    private static CompetingFlow bbr(SimPair p, long oneWay) {
        return new BbrLikeFlow(p.events, p.clientToServer, oneWay);
    }

    @Test
    void theDefaultYieldsToALateRenoFlowWithinTwoSecondsAndStaysOut() {
        for (int rtt : new int[] {20, 100}) {
            Shares s = scavengerThenCompetitor(CongestionControls.LEDBAT, rtt, ScavengerSimulationTest::reno);
            double t = s.timeToYield(0.10);
            System.out.printf("ledbat vs late reno-like, %d ms: time to yield %.1f s, share %.3f%n", rtt, t, s.share());
            assertTrue(t >= 0 && t <= 2.0, rtt + " ms: time to yield " + t + " s");
            releaseEverything();
        }
    }

    @Test
    void theDefaultYieldsToALateBbrFlowWithinTwoSecondsAndStaysOut() {
        for (int rtt : new int[] {20, 100}) {
            Shares s = scavengerThenCompetitor(CongestionControls.LEDBAT, rtt, ScavengerSimulationTest::bbr);
            double t = s.timeToYield(0.10);
            System.out.printf("ledbat vs late bbr-like, %d ms: time to yield %.1f s, share %.3f%n", rtt, t, s.share());
            assertTrue(t >= 0 && t <= 2.0, rtt + " ms: time to yield " + t + " s");
            releaseEverything();
        }
    }

    @Test
    void rfc6817BacksOffFromALateRenoFlowOnlySlowly() {
        // the behaviour LEDBAT++'s multiplicative decrease fixes: a linear decrease of one packet per RTT
        Shares s = scavengerThenCompetitor(CongestionControls.LEDBAT_CLASSIC, 20, ScavengerSimulationTest::reno);
        double t = s.timeToYield(0.10);
        System.out.printf("ledbat-classic vs late reno-like, 20 ms: time to yield %.1f s, share %.3f%n", t, s.share());
        assertTrue(t < 0 || t > 2.0, "RFC 6817 yielded in " + t + " s");
    }

    @Test
    void theDraftDoesNotYieldToBbrOnAShortPathButTheDefaultDoes() {
        // LEDBAT++'s 60 ms target is above the queue BBR keeps on a 20 ms path (Bagnulo & Garcia-Martinez 2022)
        Shares draft = scavengerThenCompetitor(CongestionControls.LEDBAT_PLUS_PLUS, 20, ScavengerSimulationTest::bbr);
        releaseEverything();
        Shares ours = scavengerThenCompetitor(CongestionControls.LEDBAT, 20, ScavengerSimulationTest::bbr);
        System.out.printf("vs late bbr-like, 20 ms: ledbat++ share %.3f, ledbat share %.3f%n", draft.share(), ours.share());
        // yielding means keeping at most 10 % (issue 10's bar); the draft keeps 15-25 % (the figure moves
        // with the pacer's burst pattern), three to five times the default's share
        assertTrue(draft.share() > 0.1 && draft.share() > 2 * ours.share(), "LEDBAT++ kept " + draft.share());
        assertTrue(ours.share() < 0.1, "the default kept " + ours.share());
    }
}
