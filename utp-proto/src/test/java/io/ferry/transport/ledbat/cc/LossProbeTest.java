package io.ferry.transport.ledbat.cc;

import io.ferry.transport.ledbat.cc.LossProbe.Verdict;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link LossProbe}'s verdicts, round trip by round trip (each round: losses declared, packets sent). */
class LossProbeTest {
    private static final long RTT = 1_000_000L;
    private final LossProbe probe = new LossProbe();
    private long round;

    private Verdict round(int losses, int sent) {
        return round(losses, sent, false, true);
    }

    private Verdict round(int losses, int sent, boolean answered, boolean eligible) {
        long r = round++;
        return probe.endRound(losses, sent, answered, eligible, r, r * RTT);
    }

    /** Rounds losing a third of 90 packets each, taken for random, until the probe cuts. */
    private void lossyUntilTheCut() {
        round(0, 90);
        assertEquals(Verdict.NONE, round(30, 90));
        assertEquals(Verdict.NONE, round(30, 90));
        assertEquals(Verdict.CUT, round(30, 90));
        assertTrue(probe.probing());
    }

    @Test
    void lossesThatStopAfterTheCutWereTheWindowsAndMakeEveryLossCongestionsForAWhile() {
        lossyUntilTheCut();
        assertEquals(Verdict.NONE, round(30, 60)); // settling: losses of packets sent before the cut
        assertEquals(Verdict.NONE, round(10, 60));
        assertEquals(Verdict.OVERFLOW, round(1, 60)); // 1 of the 60 sent the round before
        assertFalse(probe.probing());
        assertTrue(probe.overflowing(round * RTT));
        assertFalse(probe.overflowing(round * RTT + LossProbe.OVERFLOW_NANOS));
        assertEquals(1, probe.overflows());
    }

    @Test
    void lossesThatGoOnAfterTheCutAreALossyLinksAndNoProbeFollowsForAWhile() {
        lossyUntilTheCut();
        round(30, 60);
        round(20, 60);
        assertEquals(Verdict.RANDOM, round(15, 60)); // 15 of 60: a quarter, as before the cut
        assertFalse(probe.overflowing(round * RTT));
        for (int i = 0; i < LossProbe.QUIET_ROUNDS - 1; i++) {
            assertEquals(Verdict.NONE, round(30, 90), "quiet round " + i);
        }
    }

    @Test
    void aLossAnsweredDuringTheTestCancelsIt() {
        lossyUntilTheCut();
        assertEquals(Verdict.CANCELLED, round(30, 60, true, true));
        assertFalse(probe.probing());
    }

    @Test
    void tooFewPacketsAfterTheCutSayNothingAndCostLeast() {
        lossyUntilTheCut();
        Verdict last = Verdict.NONE;
        for (int i = 0; i < LossProbe.SETTLE_ROUNDS + LossProbe.MEASURE_ROUNDS && last == Verdict.NONE; i++) {
            last = round(0, 2);
        }
        assertEquals(Verdict.RANDOM, last, "a window of two packets cannot show the losses stopped");
    }

    @Test
    void aVerdictOfOverflowThatLossesGoOnContradictingIsWithdrawn() {
        lossesThatStopAfterTheCutWereTheWindowsAndMakeEveryLossCongestionsForAWhile();
        assertEquals(Verdict.NONE, round(3, 45)); // 3 of the 60 sent before: the verdict holds
        assertEquals(Verdict.RANDOM, round(12, 20), "12 of the 45 sent before lost though every loss halves the window");
        assertFalse(probe.overflowing(round * RTT));
    }

    @Test
    void onlyRoundsThatLoseEnoughUnansweredStartATest() {
        round(0, 90);
        for (int i = 0; i < 10; i++) {
            assertEquals(Verdict.NONE, round(3, 90), "3 losses are too few");
        }
        for (int i = 0; i < 10; i++) {
            assertEquals(Verdict.NONE, round(30, 90, true, true), "answered as congestion's");
        }
        for (int i = 0; i < 10; i++) {
            assertEquals(Verdict.NONE, round(30, 90, false, false), "not in congestion avoidance");
        }
        assertEquals(Verdict.NONE, round(30, 90));
        assertEquals(Verdict.NONE, round(3, 90));
        assertEquals(Verdict.NONE, round(30, 90), "the lossy rounds must come in a row");
    }
}
