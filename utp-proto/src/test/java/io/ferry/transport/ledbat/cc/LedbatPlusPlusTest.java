package io.ferry.transport.ledbat.cc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LedbatPlusPlusTest {
    private static final int MSS = 1000;
    private static final long TARGET_MICROS = 60_000;
    private static final int BASE = 0x7000_0000;
    private static final long MS = 1_000_000L;

    private final CongestionParameters params = new CongestionParameters(MSS, TARGET_MICROS);

    private static LedbatPlusPlus draft(CongestionParameters p) {
        return LedbatPlusPlus.draft(p);
    }

    private static LedbatPlusPlus tied(CongestionParameters p) {
        return LedbatPlusPlus.competitionAware(p, CongestionControls.LEDBAT_RTT_FRACTION);
    }

    /**
     * Acknowledges one window of a window-limited flow, packet by packet, each ACK seeing
     * {@code queuingMicros} of queue on top of a base round trip of {@code rttNanos}; returns the time
     * after it.
     */
    private static long ackOneWindow(LedbatPlusPlus cc, long now, long queuingMicros, long rttNanos) {
        long cwnd = cc.cwndBytes();
        long acked = 0;
        long step = rttNanos / Math.max(1, cwnd / MSS);
        while (acked < cwnd) {
            cc.onDelaySample(BASE + (int) queuingMicros, now);
            cc.onAck(MSS, cc.cwndBytes(), rttNanos + queuingMicros * 1000, now);
            acked += MSS;
            now += step;
        }
        return now;
    }

    /** As {@link #ackOneWindow}, the last quarter of the acknowledgements seeing {@code stallMicros} of queue. */
    private static long ackOneWindowWithStall(LedbatPlusPlus cc, long now, long queuingMicros, long stallMicros, long rttNanos) {
        long cwnd = cc.cwndBytes();
        long acked = 0;
        long step = rttNanos / Math.max(1, cwnd / MSS);
        while (acked < cwnd) {
            long q = acked < cwnd * 3 / 4 ? queuingMicros : stallMicros;
            cc.onDelaySample(BASE + (int) q, now);
            cc.onAck(MSS, cc.cwndBytes(), rttNanos + q * 1000, now);
            acked += MSS;
            now += step;
        }
        return now;
    }

    /** Runs slow start on an empty queue until the window reaches {@code packets}, then builds a queue to end it. */
    private static long grownTo(LedbatPlusPlus cc, int packets, long rttNanos) {
        long now = 0;
        cc.onDelaySample(BASE, now);
        while (cc.cwndBytes() < (long) packets * MSS) {
            now = ackOneWindow(cc, now, 0, rttNanos);
        }
        cc.onDelaySample(BASE + 50_000, now);
        cc.onDelaySample(BASE + 50_000, now);
        cc.onDelaySample(BASE + 50_000, now);
        cc.onDelaySample(BASE + 50_000, now);
        cc.onAck(MSS, cc.cwndBytes(), rttNanos + 50 * MS, now);
        assertFalse(cc.inSlowStart(), "a queue above 3/4 of the target ends slow start");
        return now;
    }

    /** Lets the initial slowdown pass and the window regrow; the next slowdown is then many RTTs away. */
    private static long pastTheFirstSlowdown(LedbatPlusPlus cc, long now, long rttNanos) {
        while (cc.slowdowns() == 0 || cc.inSlowdown() || cc.inSlowStart()) {
            now = ackOneWindow(cc, now, 0, rttNanos);
        }
        return now;
    }

    @Test
    void gainFollowsTheBaseRttAsTheDraftSays() {
        long[][] cases = {{20, 6}, {100, 2}, {120, 1}, {200, 1}, {1, 16}, {7, 16}, {8, 15}};
        for (long[] c : cases) {
            LedbatPlusPlus cc = draft(params);
            cc.onAck(MSS, 2L * MSS, c[0] * MS, 0);
            assertEquals(1.0 / c[1], cc.gain(), 1e-9, "GAIN at a base RTT of " + c[0] + " ms");
        }
    }

    @Test
    void slowStartGrowsByGainTimesAckedAndEndsAtThreeQuartersOfTheTarget() {
        LedbatPlusPlus cc = draft(params);
        long now = 0;
        cc.onDelaySample(BASE, now);
        long before = cc.cwndBytes();
        now = ackOneWindow(cc, now, 0, 100 * MS);
        // GAIN = 1/2 at 100 ms: the window grows by half of what was acknowledged
        assertEquals(before + before / 2, cc.cwndBytes(), MSS / 2.0);
        assertTrue(cc.inSlowStart());
        now = ackOneWindow(cc, now, (long) (0.7 * TARGET_MICROS), 100 * MS);
        assertTrue(cc.inSlowStart(), "0.7 of the target is still below the exit");
        ackOneWindow(cc, now, (long) (0.8 * TARGET_MICROS), 100 * MS);
        assertFalse(cc.inSlowStart(), "0.8 of the target ends slow start");
    }

    @Test
    void belowTheTargetTheWindowGrowsByGainPacketsPerRtt() {
        LedbatPlusPlus cc = draft(params);
        long now = pastTheFirstSlowdown(cc, grownTo(cc, 40, 100 * MS), 100 * MS);
        for (int i = 0; i < 20; i++) {
            long before = cc.cwndBytes();
            now = ackOneWindow(cc, now, 10_000, 100 * MS);
            long growth = cc.cwndBytes() - before;
            assertTrue(growth >= 0 && growth <= 0.55 * MSS, "grew " + growth + " bytes in one RTT with GAIN 1/2");
        }
    }

    @Test
    void aboveTheTargetTheWindowNeverGrowsAndShrinksAtMostByHalfPerRtt() {
        LedbatPlusPlus cc = draft(params);
        long now = pastTheFirstSlowdown(cc, grownTo(cc, 200, 100 * MS), 100 * MS);
        long[] queues = {61_000, 70_000, 90_000, 180_000, 600_000};
        for (long q : queues) {
            long before = cc.cwndBytes();
            now = ackOneWindow(cc, now, q, 100 * MS);
            long after = cc.cwndBytes();
            assertTrue(after <= before, "grew from " + before + " to " + after + " with " + q / 1000 + " ms of queue");
            assertTrue(after >= before / 2 - MSS, "shrank from " + before + " to " + after + " in one RTT");
        }
        for (int i = 0; i < 10; i++) {
            now = ackOneWindow(cc, now, 600_000, 100 * MS);
        }
        assertEquals(2L * MSS, cc.cwndBytes(), "a standing queue ten times the target drives it to the minimum");
    }

    @Test
    void multiplicativeDecreaseHalvesPerRttFarAboveTheTarget() {
        LedbatPlusPlus cc = draft(params);
        long now = pastTheFirstSlowdown(cc, grownTo(cc, 400, 20 * MS), 20 * MS);
        long before = cc.cwndBytes();
        ackOneWindow(cc, now, 3 * TARGET_MICROS, 20 * MS);
        double ratio = (double) cc.cwndBytes() / before;
        // RFC 6817 would take off at most 2 packets here; LEDBAT++ takes off up to half per round trip
        assertTrue(ratio < 0.65 && ratio > 0.45, "one RTT at three times the target kept " + ratio + " of the window");
    }

    @Test
    void periodicSlowdownsHoldTwoPacketsForTwoRttsAndRecurNineTimesTheirLengthLater() {
        LedbatPlusPlus cc = draft(params);
        long rtt = 50 * MS;
        long now = grownTo(cc, 100, rtt);
        long exitedAt = now;
        long window = cc.cwndBytes();
        while (!cc.inSlowdown()) {
            now = ackOneWindow(cc, now, 20_000, rtt);
        }
        long firstStart = now;
        assertTrue(firstStart - exitedAt >= 2 * rtt && firstStart - exitedAt <= 4 * rtt,
                "the initial slowdown starts two RTTs after slow start, began after " + (firstStart - exitedAt) / MS + " ms");
        assertEquals(2L * MSS, cc.cwndBytes());
        while (cc.inSlowdown()) {
            assertEquals(2L * MSS, cc.cwndBytes(), "the window stays at two packets during the slowdown");
            now = ackOneWindow(cc, now, 0, rtt);
        }
        assertTrue(now - firstStart >= 2 * rtt, "the slowdown lasts two RTTs");
        while (cc.inSlowStart()) {
            now = ackOneWindow(cc, now, 0, rtt);
        }
        long regrownAt = now;
        assertTrue(cc.cwndBytes() >= window - 2 * MSS, "slow start brings the window back: " + cc.cwndBytes() + " of " + window);
        long slowdownLength = regrownAt - firstStart;
        while (!cc.inSlowdown()) {
            now = ackOneWindow(cc, now, 20_000, rtt);
        }
        long gap = now - regrownAt;
        // both ends are seen at the end of a window, so each may be one RTT late: ±9 RTTs on nine lengths
        assertTrue(gap >= 9 * (slowdownLength - rtt) - rtt && gap <= 9 * (slowdownLength + rtt) + rtt,
                "next slowdown " + gap / MS + " ms after the last one ended; it lasted " + slowdownLength / MS + " ms");
        assertEquals(2, cc.slowdowns());
    }

    @Test
    void theDefaultEndsASlowdownOnceTheQueueDrainedAndRegrowsByDoubling() {
        LedbatPlusPlus cc = tied(params);
        long rtt = 50 * MS;
        cc.onAck(MSS, 2L * MSS, 40 * MS, 0);
        long now = grownTo(cc, 100, rtt);
        long window = cc.cwndBytes();
        while (!cc.inSlowdown()) {
            now = ackOneWindow(cc, now, 5_000, rtt);
        }
        long start = now;
        now = ackOneWindow(cc, now, 5_000, rtt);
        assertTrue(cc.inSlowdown(), "a queue still there keeps the slowdown going");
        now = ackOneWindow(cc, now, 0, rtt);
        assertFalse(cc.inSlowdown(), "a drained queue ends it after one round trip");
        assertTrue(now - start <= 2 * rtt + MS);
        int rtts = 0;
        while (cc.inSlowStart()) {
            // a queue that is there but below the exit: the regrowth stops at the old window
            now = ackOneWindow(cc, now, 4_000, rtt);
            rtts++;
        }
        assertTrue(cc.cwndBytes() >= window - 2 * MSS, "back to " + cc.cwndBytes() + " of " + window);
        assertTrue(rtts <= 4, "doubling from an eighth of the window takes three round trips (from two packets, six), took " + rtts);
    }

    @Test
    void afterASlowStartThatOverflowedTheBufferTheDefaultRegrowsToWhatThePathDeliveredNotToTheHalvedWindow() {
        LedbatPlusPlus cc = tied(params);
        long rtt = 150 * MS;
        // slow start on an empty 150 ms path until 256 packets fill it (256 packets per round trip delivered)
        long now = slowStartAt(cc, 256, 0);
        // the overshoot stands in the buffer (100 ms, above the 37.5 ms target): slow start ends, and the
        // buffer overflowing with the queue at 150 ms halves the window
        now = ackOneWindow(cc, now, 100_000, rtt);
        assertFalse(cc.inSlowStart());
        cc.onDelaySample(BASE + 150_000, now);
        long beforeLoss = cc.cwndBytes();
        assertTrue(cc.onLoss(now, rtt + 150 * MS), "a loss with the queue far above the target is congestion");
        assertEquals(beforeLoss / 2, cc.cwndBytes(), 1);
        while (!cc.inSlowdown()) {
            now = ackOneWindow(cc, now, 100_000, rtt);
        }
        while (cc.inSlowdown() || cc.inSlowStart()) {
            now = ackOneWindow(cc, now, 0, rtt);
        }
        // the smoothed RTT still carried the 100 ms queue and the window had been halved: from those two
        // alone the regrowth would stop near 100 packets, a third of what the path carries
        assertTrue(cc.cwndBytes() >= 200L * MSS, "regrew to " + cc.cwndBytes() / MSS + " packets; the path delivered 256 per round trip");
    }

    /**
     * One round trip of acknowledgements that each find the flight {@code shortPackets} below the window:
     * what the pacer holds back between its sends when a batch of acknowledgements freed more than its
     * burst.
     */
    private static long ackOneWindowShortOfIt(LedbatPlusPlus cc, long now, int shortPackets, boolean pacerHeld, long rttNanos) {
        long cwnd = cc.cwndBytes();
        long step = rttNanos / Math.max(1, cwnd / MSS);
        for (long acked = 0; acked < cwnd; acked += MSS) {
            cc.onDelaySample(BASE, now);
            cc.onPacerHeld(pacerHeld);
            cc.onAck(MSS, cc.cwndBytes() - (long) shortPackets * MSS, rttNanos, now);
            now += step;
        }
        return now;
    }

    @Test
    void aFlightThePacerHeldShortOfTheWindowStillLetsItGrowButOneTheApplicationLeftShortDoesNot() {
        long rtt = 150 * MS;
        for (boolean pacerHeld : new boolean[] {false, true}) {
            // slow start
            LedbatPlusPlus cc = tied(params);
            long now = 0;
            cc.onDelaySample(BASE, now);
            while (cc.cwndBytes() < 40L * MSS) {
                now = ackOneWindow(cc, now, 0, rtt);
            }
            long before = cc.cwndBytes();
            ackOneWindowShortOfIt(cc, now, 3, pacerHeld, rtt);
            double growth = (double) cc.cwndBytes() / before;
            if (pacerHeld) {
                assertTrue(growth > 1.9, "slow start held back by the pacer still doubles: " + growth);
            } else {
                assertTrue(growth < 1.05, "slow start of a sender with nothing more to send does not grow: " + growth);
            }
            // congestion avoidance into an empty link: an eighth per round trip
            LedbatPlusPlus avoiding = tied(params);
            avoiding.onAck(MSS, 2L * MSS, rtt, 0);
            now = pastTheFirstSlowdown(avoiding, grownTo(avoiding, 200, rtt), rtt);
            now = ackOneWindow(avoiding, now, 0, rtt);
            before = avoiding.cwndBytes();
            ackOneWindowShortOfIt(avoiding, now, 3, pacerHeld, rtt);
            growth = (double) avoiding.cwndBytes() / before;
            if (pacerHeld) {
                assertTrue(growth > 1.10, "an empty link, the pacer holding back: grew by " + growth);
            } else {
                assertTrue(growth < 1.02, "an empty link, nothing more to send: grew by " + growth);
            }
        }
    }

    @Test
    void theDefaultGrowsByAnEighthPerRttWhileTheQueueStaysEmptyAndByItsFairStepOtherwise() {
        LedbatPlusPlus cc = tied(params);
        long rtt = 40 * MS;
        cc.onAck(MSS, 2L * MSS, rtt, 0);
        // target 10 ms: a standing queue below 2.5 ms means the link is not full
        long now = pastTheFirstSlowdown(cc, grownTo(cc, 50, rtt), rtt);
        now = ackOneWindow(cc, now, 0, rtt);
        long before = cc.cwndBytes();
        now = ackOneWindow(cc, now, 0, rtt);
        double growth = (double) cc.cwndBytes() / before;
        assertTrue(growth > 1.10 && growth < 1.14, "an empty queue: grew by " + growth + " in one RTT");
        // 6 ms is below the aim of 8.75 ms (7/8 of the target)
        now = ackOneWindow(cc, now, 6_000, rtt);
        now = ackOneWindow(cc, now, 6_000, rtt);
        before = cc.cwndBytes();
        double expected = cc.additiveStepPackets() * MSS;
        assertTrue(expected >= 4 * cc.gain() * MSS, "the fair step is well above GAIN: " + expected);
        ackOneWindow(cc, now, 6_000, rtt);
        long step = cc.cwndBytes() - before;
        assertTrue(step >= 0.9 * expected && step <= 1.1 * expected, "a queue below the target: grew by " + step + " bytes, expected " + expected);
        // at the aim and above it, no growth
        before = cc.cwndBytes();
        ackOneWindow(cc, now, 9_500, rtt);
        assertTrue(cc.cwndBytes() <= before, "above the aim the default does not grow: " + before + " -> " + cc.cwndBytes());
    }

    @Test
    void twoDefaultFlowsOnOneQueueEvenOutWithinSecondsAfterOneJoinsTheOther() {
        // a fluid model of one bottleneck: 100 packets per ms (about 100 Mbit/s of 1000-byte packets),
        // 100 ms base RTT, both flows seeing the queue their windows together build
        double perMs = 100;
        long rtt = 100 * MS;
        for (boolean draftFlows : new boolean[] {false, true}) {
            LedbatPlusPlus first = draftFlows ? draft(params) : tied(params);
            LedbatPlusPlus second = draftFlows ? draft(params) : tied(params);
            long t1 = 0;
            long t2 = 0;
            first.onAck(MSS, 2L * MSS, rtt, 0);
            for (int round = 0; round < 150; round++) {
                t1 = ackOneWindow(first, t1, queueMicros(first.cwndBytes(), 0, perMs, rtt), rtt);
            }
            second.onAck(MSS, 2L * MSS, rtt, t2 = t1);
            double sum1 = 0;
            double sum2 = 0;
            // twenty seconds together, judged after the first five
            for (int round = 0; round < 200; round++) {
                long q = queueMicros(first.cwndBytes(), second.cwndBytes(), perMs, rtt);
                long start = Math.max(t1, t2);
                t1 = ackOneWindow(first, start, q, rtt);
                t2 = ackOneWindow(second, start, q, rtt);
                if (round >= 50) {
                    sum1 += first.cwndBytes();
                    sum2 += second.cwndBytes();
                }
            }
            double jain = (sum1 + sum2) * (sum1 + sum2) / (2 * (sum1 * sum1 + sum2 * sum2));
            if (draftFlows) {
                assertTrue(jain < 0.9, "the draft's GAIN-sized steps leave the newcomer behind for long: Jain " + jain);
            } else {
                assertTrue(jain >= 0.95, "windows after the first five seconds: " + sum1 / 150 + " and " + sum2 / 150 + ", Jain " + jain);
            }
        }
    }

    /** The queuing delay two windows build on a link of {@code perMs} packets per millisecond. */
    private static long queueMicros(long cwnd1, long cwnd2, double perMs, long rttNanos) {
        double packets = (double) (cwnd1 + cwnd2) / MSS;
        double bdp = perMs * rttNanos / MS;
        return (long) Math.max(0, (packets - bdp) / perMs * 1000);
    }

    @Test
    void theDefaultTargetIsAQuarterOfTheBaseRttWithinItsBounds() {
        LedbatPlusPlus tied = tied(params);
        assertEquals(TARGET_MICROS, tied.effectiveTargetMicros(), "before any RTT sample the configured target holds");
        tied.onAck(MSS, 2L * MSS, 100 * MS, 0);
        assertEquals(25_000, tied.effectiveTargetMicros());
        tied.onAck(MSS, 2L * MSS, 12 * MS, 1);
        assertEquals(LedbatTuning.MIN_ADAPTIVE_TARGET_MICROS, tied.effectiveTargetMicros(), "never below the floor");
        LedbatPlusPlus longPath = tied(params);
        longPath.onAck(MSS, 2L * MSS, 300 * MS, 0);
        assertEquals(TARGET_MICROS, longPath.effectiveTargetMicros(), "never above the configured target");
        assertEquals(TARGET_MICROS, draft(params).effectiveTargetMicros());
    }

    @Test
    void aStandingQueueBelowTheDraftTargetMakesTheDefaultYieldButNotTheDraft() {
        // what BBR leaves on a 20 ms path: about one base RTT of queue, below LEDBAT++'s 60 ms
        long rtt = 40 * MS;
        LedbatPlusPlus tied = tied(params);
        LedbatPlusPlus plain = draft(params);
        tied.onAck(MSS, 2L * MSS, 20 * MS, 0);
        plain.onAck(MSS, 2L * MSS, 20 * MS, 0);
        long t = grownTo(tied, 150, rtt);
        long p = grownTo(plain, 150, rtt);
        long plainBefore = plain.cwndBytes();
        long tiedLargest = 0;
        long plainSmallest = Long.MAX_VALUE;
        for (int i = 0; i < 40; i++) {
            t = ackOneWindow(tied, t, 20_000, rtt);
            p = ackOneWindow(plain, p, 20_000, rtt);
            if (i >= 10 && !tied.inSlowStart() && !tied.inSlowdown()) {
                tiedLargest = Math.max(tiedLargest, tied.cwndBytes());
            }
            if (!plain.inSlowStart() && !plain.inSlowdown()) {
                plainSmallest = Math.min(plainSmallest, plain.cwndBytes());
            }
        }
        assertEquals(2L * MSS, tiedLargest, "the default backs off to the minimum and stays there");
        assertTrue(plainSmallest >= plainBefore, "the draft never backs off below the target: " + plainSmallest);
    }

    @Test
    void lossHalvesOncePerRttAndTimeoutRegrowsToHalf() {
        LedbatPlusPlus cc = draft(params);
        long now = pastTheFirstSlowdown(cc, grownTo(cc, 100, 100 * MS), 100 * MS);
        long w = cc.cwndBytes();
        assertTrue(cc.onLoss(now, 100 * MS));
        assertEquals(w / 2, cc.cwndBytes(), 1);
        assertFalse(cc.onLoss(now + 50 * MS, 100 * MS), "one reduction per RTT");
        long half = cc.cwndBytes();
        cc.onTimeout(now + 200 * MS);
        assertEquals(MSS, cc.cwndBytes());
        assertTrue(cc.inSlowStart());
        now += 200 * MS;
        while (cc.inSlowStart()) {
            now = ackOneWindow(cc, now, 0, 100 * MS);
        }
        assertEquals(half / 2, cc.cwndBytes(), MSS, "slow start after a timeout stops at half the window");
    }

    /** Slow start of the default on a 100 ms path whose queue reads {@code queuingMicros} throughout, to {@code packets}. */
    private static long slowStartAt(LedbatPlusPlus cc, int packets, long queuingMicros) {
        long now = 0;
        cc.onDelaySample(BASE, now);
        while (cc.cwndBytes() < (long) packets * MSS) {
            now = ackOneWindow(cc, now, queuingMicros, 100 * MS);
        }
        return now;
    }

    @Test
    void theDefaultTakesALossWithNoQueueForARandomOneAndKeepsItsWindowAndSlowStart() {
        LedbatPlusPlus cc = tied(params);
        long now = slowStartAt(cc, 40, 0);
        long w = cc.cwndBytes();
        assertFalse(cc.onLoss(now, 100 * MS), "no queue ever stood: the loss is the link's, not congestion");
        assertEquals(w, cc.cwndBytes());
        assertTrue(cc.inSlowStart());
        assertEquals(1, cc.randomLosses());
        // the draft halves on every loss
        LedbatPlusPlus draft = draft(params);
        now = slowStartAt(draft, 40, 0);
        w = draft.cwndBytes();
        assertTrue(draft.onLoss(now, 100 * MS));
        assertEquals(w / 2, draft.cwndBytes(), 1);
    }

    @Test
    void theDefaultTakesARoundThatLostMostOfItsPacketsForCongestionWhateverTheQueue() {
        LedbatPlusPlus cc = tied(params);
        long now = slowStartAt(cc, 40, 0);
        // a round trip in which two packets are lost for each that arrives: a buffer of a packet or two
        // overflowing; at the loss rates of a lossy link these losses are taken for random ones
        now = ackOneWindow(cc, now, 0, 100 * MS);
        long w = cc.cwndBytes();
        for (int i = 0; i < 25; i++) {
            cc.onDelaySample(BASE, now);
            cc.onAck(MSS, cc.cwndBytes(), 100 * MS, now);
            cc.onLoss(now, 100 * MS);
            cc.onLoss(now, 100 * MS);
            now += 5 * MS;
        }
        now += 100 * MS;
        cc.onDelaySample(BASE, now);
        cc.onAck(MSS, cc.cwndBytes(), 100 * MS, now);
        cc.onLoss(now, 100 * MS);
        assertFalse(cc.inSlowStart(), "more than half of a round trip's packets lost: congestion");
        assertTrue(cc.cwndBytes() < w, "halved from " + w + " to " + cc.cwndBytes());
    }

    @Test
    void behindABufferShallowerThanTheTargetALossAtItsPeakHalvesAndGrowthIsHeldToHalfAPacketPerRtt() {
        LedbatPlusPlus cc = tied(params);
        // 100 ms path, target 25 ms: the buffer holds 4 ms, so the queue never comes near the target
        long now = slowStartAt(cc, 40, 4_000);
        long w = cc.cwndBytes();
        assertTrue(cc.onLoss(now, 100 * MS), "a loss with the largest queue seen standing is the buffer overflowing");
        assertEquals(w / 2, cc.cwndBytes(), 1);
        assertFalse(cc.inSlowStart());
        // the queue drains after the halving: a link that shows no queue, which would otherwise mean
        // growth by an eighth per round trip (2-3 packets here)
        now += 100 * MS;
        long before = cc.cwndBytes();
        for (int i = 0; i < 10; i++) {
            now = ackOneWindow(cc, now, 0, 100 * MS);
        }
        assertTrue(cc.cwndBytes() - before <= 5 * MSS + MSS / 2, "at most half a packet per round trip: grew "
                + (cc.cwndBytes() - before) + " bytes in 10 round trips");
        assertTrue(cc.cwndBytes() > before, "but it grows");
        // a loss with the queue at a quarter of that peak: random
        now = ackOneWindow(cc, now, 1_000, 100 * MS);
        long w2 = cc.cwndBytes();
        assertFalse(cc.onLoss(now, 100 * MS));
        assertEquals(w2, cc.cwndBytes());
    }

    @Test
    void aNewcomerInSlowStartIsNoticedThoughOurDecreaseKeepsTheQueueAtTheTarget() {
        double perMs = 100;
        long rtt = 100 * MS;
        LedbatPlusPlus flow = tied(params);
        long t = aloneOnTheFluidPath(flow);
        long alone = flow.cwndBytes();
        assertTrue(alone > 9_000L * MSS, "alone it fills the path: " + alone / MSS + " packets");
        // a newcomer doubles its window every round trip from ten packets
        long newcomer = 10L * MSS;
        long maxQueue = 0;
        int rounds = 0;
        while (flow.cwndBytes() > 4L * MSS && rounds < 30) {
            long q = queueMicros(flow.cwndBytes(), newcomer, perMs, rtt);
            maxQueue = Math.max(maxQueue, q);
            t = ackOneWindow(flow, t, q, rtt);
            newcomer *= 2;
            rounds++;
        }
        assertTrue(flow.cwndBytes() <= 4L * MSS, "it went down to the minimum window");
        assertTrue(newcomer / MSS <= 10_000, "before the newcomer's window passed the path's capacity: "
                + newcomer / MSS + " packets after " + rounds + " round trips");
        assertTrue(maxQueue < 2 * 25_000, "the queue never showed twice the target (" + maxQueue + " us): only the decreases did");
    }

    @Test
    void afterYieldingItLeavesAPartEmptyLinkAloneForTheHoldAndThenTakesItBack() {
        LedbatPlusPlus flow = tied(params);
        // a competitor's queue stands far above the target: the flow yields
        long yieldedAt = yieldedTo(flow, 80_000);
        // then the competitor (a TCP flow whose slow start ended early) holds 40 % of the path: the
        // link is part empty, and stays so while the scavenger holds back
        long t = yieldedAt;
        long largestDuringHold = 0;
        while (t - yieldedAt < 1_900 * MS) { // the hold is 2 s
            t = besideAPartEmptyingCompetitor(flow, t, t + 1);
            largestDuringHold = Math.max(largestDuringHold, flow.cwndBytes());
        }
        assertTrue(largestDuringHold < 20L * MSS, "GAIN-sized steps only during the hold: " + largestDuringHold / MSS + " packets");
        besideAPartEmptyingCompetitor(flow, t, yieldedAt + 8_000 * MS);
        assertTrue(flow.cwndBytes() > 4_000L * MSS, "after the hold it fills what the competitor leaves: "
                + flow.cwndBytes() / MSS + " packets");
    }

    @Test
    void theHoldIsCountedInRoundTripsOfThePathNotInThoseTheCompetitorsQueueInflated() {
        LedbatPlusPlus flow = tied(params);
        // a newcomer's slow start overshoots by twice the base RTT: the smoothed RTT triples, and twenty
        // of those round trips would hold the flow back for six seconds
        long yieldedAt = yieldedTo(flow, 200_000);
        long t = besideAPartEmptyingCompetitor(flow, yieldedAt, yieldedAt + 2_000 * MS);
        assertTrue(flow.cwndBytes() < 20L * MSS, "held for the 2 s: " + flow.cwndBytes() / MSS + " packets");
        // twenty round trips of the path with the target queue on it (125 ms) end the hold at 2.5 s
        besideAPartEmptyingCompetitor(flow, t, yieldedAt + 3_500 * MS);
        assertTrue(flow.cwndBytes() > 200L * MSS, "climbing back within a second of the hold's end: "
                + flow.cwndBytes() / MSS + " packets");
    }

    @Test
    void aYieldThatTheDrainedQueueBehindItShowsToBeOurOwnEndsWithinRoundTripsAndTheWindowRegrows() {
        double perMs = 100;
        long rtt = 100 * MS;
        LedbatPlusPlus flow = tied(params);
        long t = aloneOnTheFluidPath(flow);
        long alone = flow.cwndBytes();
        // the path stalls now and then, each time longer, lifting the delay for the last quarter of a round
        // trip while the queue that stands through it stays at the aim: our decreases grow as a
        // newcomer's slow start would make them
        long[] stall = {30_000, 60_000, 120_000, 240_000, 480_000};
        for (int round = 0; round < stall.length && flow.cwndBytes() > 2L * MSS; round++) {
            t = ackOneWindowWithStall(flow, t, 22_000, stall[round], rtt);
        }
        assertEquals(2L * MSS, flow.cwndBytes(), "the growing decreases made it yield");
        assertEquals(1, flow.yields());
        // nobody else is there: the queue behind the yield stays empty
        int rounds = 0;
        while (flow.cwndBytes() < alone / 2 && rounds < 40) {
            t = ackOneWindow(flow, t, queueMicros(flow.cwndBytes(), 0, perMs, rtt), rtt);
            rounds++;
        }
        assertEquals(1, flow.falseAlarms(), "the yield was taken back as a false alarm");
        assertTrue(rounds <= 25, "half the window regrown within 25 round trips, not after the 2 s hold: " + rounds);
    }

    @Test
    void aYieldThatANewcomersQueueConfirmsKeepsItsHold() {
        double perMs = 100;
        long rtt = 100 * MS;
        LedbatPlusPlus flow = tied(params);
        Yielded yielded = yieldedToADoublingNewcomer(flow);
        long t = yielded.t();
        long newcomer = yielded.newcomer();
        long yieldedAt = t;
        // the newcomer doubles on until its losses, then holds the path and its queue
        long largest = 0;
        while (t - yieldedAt < 1_900 * MS) {
            newcomer = Math.min(newcomer * 2, 11_000L * MSS);
            t = ackOneWindow(flow, t, queueMicros(flow.cwndBytes(), newcomer, perMs, rtt), rtt);
            largest = Math.max(largest, flow.cwndBytes());
        }
        assertEquals(0, flow.falseAlarms());
        assertTrue(largest < 20L * MSS, "it stayed out through the hold: " + largest / MSS + " packets");
    }

    @Test
    void aNewcomerThatStopsShortOfThePathGetsTheFullHoldTheSecondTime() {
        double perMs = 100;
        long rtt = 100 * MS;
        LedbatPlusPlus flow = tied(params);
        long t = yieldedToADoublingNewcomer(flow).t();
        // its slow start ends (CUBIC's HyStart) at 40 % of the path, and it grows no further: the queue
        // behind our yield drains, so the yield is taken back once; regrowing shows the queue again
        long newcomer = 4_000L * MSS;
        int rounds = 0;
        while (flow.yields() < 2 && rounds < 60) {
            t = ackOneWindow(flow, t, queueMicros(flow.cwndBytes(), newcomer, perMs, rtt), rtt);
            rounds++;
        }
        assertEquals(1, flow.falseAlarms());
        assertEquals(2, flow.yields(), "the regrowth met the newcomer's queue and yielded again");
        long secondYield = t;
        long largest = 0;
        while (t - secondYield < 1_900 * MS) {
            t = ackOneWindow(flow, t, queueMicros(flow.cwndBytes(), newcomer, perMs, rtt), rtt);
            largest = Math.max(largest, flow.cwndBytes());
        }
        assertEquals(1, flow.falseAlarms(), "no second early release so soon after the first");
        // (the rest of the flight acknowledged after the yield adds some dozens of packets in this model)
        assertTrue(largest < 100L * MSS, "the second yield holds, under 1 % of the path: " + largest / MSS + " packets");
    }

    /** When a flow gave way on the fluid path, and the newcomer's window then. */
    private record Yielded(long t, long newcomer) {
    }

    /** Runs {@code flow} alone on the fluid path, then a newcomer doubling from ten packets until {@code flow} yields. */
    private static Yielded yieldedToADoublingNewcomer(LedbatPlusPlus flow) {
        long rtt = 100 * MS;
        long t = aloneOnTheFluidPath(flow);
        long newcomer = 10L * MSS;
        while (flow.cwndBytes() > 2L * MSS) {
            t = ackOneWindow(flow, t, queueMicros(flow.cwndBytes(), newcomer, 100, rtt), rtt);
            newcomer *= 2;
        }
        return new Yielded(t, newcomer);
    }

    /**
     * Runs {@code flow} alone for 150 round trips on a fluid path of 100 packets per ms and 100 ms base
     * RTT (a bandwidth-delay product of 10 000 packets); returns the time after them.
     */
    /** Fills the fluid 100 ms path alone, then meets a competitor's queue of {@code queueMicros}; returns when it was down to two packets. */
    private static long yieldedTo(LedbatPlusPlus flow, long queueMicros) {
        long t = aloneOnTheFluidPath(flow);
        for (int round = 0; round < 6 && flow.cwndBytes() > 2L * MSS; round++) {
            t = ackOneWindow(flow, t, queueMicros, 100 * MS);
        }
        assertEquals(2L * MSS, flow.cwndBytes());
        return t;
    }

    /**
     * Acknowledges windows until {@code until} beside a competitor that holds 40 % of the fluid 100 ms
     * path (a TCP flow whose slow start ended early): whatever queue the two build; returns the time after.
     */
    private static long besideAPartEmptyingCompetitor(LedbatPlusPlus flow, long t, long until) {
        long competitor = 4_000L * MSS;
        while (t < until) {
            t = ackOneWindow(flow, t, queueMicros(flow.cwndBytes(), competitor, 100, 100 * MS), 100 * MS);
        }
        return t;
    }

    private static long aloneOnTheFluidPath(LedbatPlusPlus flow) {
        long rtt = 100 * MS;
        long t = 0;
        flow.onAck(MSS, 2L * MSS, rtt, 0);
        for (int round = 0; round < 150; round++) {
            t = ackOneWindow(flow, t, queueMicros(flow.cwndBytes(), 0, 100, rtt), rtt);
        }
        return t;
    }
}
