package io.ferry.bench.scenario;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TimeToYieldTest {
    private static final double[] TIMES = {0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0};

    @Test
    void endsWithTheLastWindowAboveTheLimit() {
        // the competitor starts at 1.0 s; the scavenger has 50 %, 30 %, then 5 % from 2.5 s on
        double[] scav = {100, 100, 50, 30, 5, 5, 5, 5};
        double[] all = {100, 100, 100, 100, 100, 100, 100, 100};
        assertEquals(1.0, TimeToYield.seconds(TIMES, scav, all, 1.0, 1, 0.10), 1e-9);
        // over two samples the window ending at 2.5 s still holds (30 + 5) / 200 = 17.5 %
        assertEquals(1.5, TimeToYield.seconds(TIMES, scav, all, 1.0, 2, 0.10), 1e-9);
    }

    @Test
    void isZeroWhenTheScavengerNeverHeldMoreAndNaNWhenItStillDoes() {
        double[] all = {100, 100, 100, 100, 100, 100, 100, 100};
        assertEquals(0.0, TimeToYield.seconds(TIMES, new double[] {100, 100, 1, 1, 1, 1, 1, 1}, all, 1.0, 2, 0.10), 1e-9);
        assertTrue(Double.isNaN(TimeToYield.seconds(TIMES, new double[] {100, 100, 1, 1, 1, 1, 1, 50}, all, 1.0, 2, 0.10)));
    }

    @Test
    void aCompetitorsBriefPauseDoesNotCountOverAWindowOfTwoSamples() {
        // at 3.0 s the competitor pauses (BBR's ProbeRTT): the scavenger's 5 units are a third of that sample
        double[] scav = {100, 5, 5, 5, 5, 5, 5, 5};
        double[] all = {100, 100, 100, 100, 100, 15, 100, 100};
        assertTrue(TimeToYield.seconds(TIMES, scav, all, 0.5, 1, 0.10) > 2);
        assertEquals(0.0, TimeToYield.seconds(TIMES, scav, all, 0.5, 2, 0.10), 1e-9);
    }

    @Test
    void misalignedSamplesAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> TimeToYield.seconds(TIMES, new double[2], new double[8], 0, 2, 0.1));
    }
}
