package io.ferry.transport.ledbat.cc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HighSpeedTest {
    private static final int MSS = 1000;

    /** RFC 3649 Appendix B: the window w (packets) at which a(w) reaches each value, and b(w) there. */
    private static final double[][] RFC_3649_TABLE = {
            {38, 1, 0.50}, {118, 2, 0.44}, {221, 3, 0.41}, {347, 4, 0.38}, {495, 5, 0.37}, {663, 6, 0.35},
            {851, 7, 0.34}, {1058, 8, 0.33}, {1284, 9, 0.32}, {1529, 10, 0.31}, {1793, 11, 0.30},
            {2076, 12, 0.29}, {2378, 13, 0.28}, {2699, 14, 0.28}, {3039, 15, 0.27}, {3399, 16, 0.27},
            {3778, 17, 0.26}, {4177, 18, 0.26}, {4596, 19, 0.25}, {5036, 20, 0.25}, {5497, 21, 0.24},
            {5979, 22, 0.24}, {6483, 23, 0.23}, {7009, 24, 0.23}, {7558, 25, 0.22}, {8130, 26, 0.22},
            {8726, 27, 0.22}, {9346, 28, 0.21}, {9991, 29, 0.21}, {10661, 30, 0.21}, {11358, 31, 0.20},
            {12082, 32, 0.20}, {12834, 33, 0.20}, {13614, 34, 0.19}, {14424, 35, 0.19}, {15265, 36, 0.19},
            {16137, 37, 0.19}, {17042, 38, 0.18}, {17981, 39, 0.18},
    };

    @Test
    void increaseAndDecreaseMatchTheRowsOfRfc3649sTable() {
        for (double[] row : RFC_3649_TABLE) {
            double w = row[0];
            assertEquals(row[1], HighSpeed.increase(w), 0.02, "a(" + w + ")");
            assertEquals(row[2], HighSpeed.decrease(w), 0.005, "b(" + w + ")");
            if (w > HighSpeed.LOW_WINDOW) {
                assertTrue(HighSpeed.increase(0.99 * w) < row[1], "a(w) reaches " + row[1] + " at w = " + w + ", not before");
            }
        }
        assertEquals(1, HighSpeed.increase(10));
        assertEquals(0.5, HighSpeed.decrease(10));
        assertEquals(HighSpeed.HIGH_DECREASE, HighSpeed.decrease(HighSpeed.HIGH_WINDOW), 1e-12);
    }

    @Test
    void aLargeWindowGrowsByAOfWPerRoundTripAndLosesOnlyBOfW() {
        long rtt = 50_000_000L;
        HighSpeed cc = new HighSpeed(new CongestionParameters(MSS, 100_000));
        AckClock path = new AckClock(cc, MSS, rtt);
        path.runUntilWindow(1058L * MSS);
        path.runFor(rtt / 2);
        double w = cc.cwndBytes() / (double) MSS;
        assertTrue(path.loss());
        double after = cc.cwndBytes() / (double) MSS;
        assertEquals((1 - HighSpeed.decrease(w)) * w, after, 1);
        assertTrue(after > 0.6 * w, "a window of " + w + " loses a third, not half");

        path.runFor(rtt + 1);
        double start = cc.cwndBytes() / (double) MSS;
        path.runFor(10 * rtt);
        double perRound = (cc.cwndBytes() / (double) MSS - start) / 10;
        assertEquals(HighSpeed.increase(start), perRound, 0.15 * HighSpeed.increase(start),
                "a(" + start + ") packets per round trip");
        assertTrue(perRound > 5, "several packets per round trip, not Reno's one");
    }
}
