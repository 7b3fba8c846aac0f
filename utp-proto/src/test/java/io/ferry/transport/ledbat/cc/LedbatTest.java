package io.ferry.transport.ledbat.cc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LedbatTest {
    private static final int MSS = 1000;
    private static final long TARGET_MICROS = 100_000;
    /** Round trip including the largest queue the tests build (the queuing delay is clamped to it). */
    private static final long RTT = 400_000_000L;
    private static final int BASE = 0x7000_0000;

    private final CongestionParameters params = new CongestionParameters(MSS, TARGET_MICROS);

    /**
     * Acknowledges one window's worth of packets of a window-limited flow (the flight before each ACK
     * is the current window), each ACK seeing {@code queuingMicros} of queue.
     */
    private static long ackOneWindow(Ledbat cc, long now, int queuingMicros) {
        long cwnd = cc.cwndBytes();
        long acked = 0;
        while (acked < cwnd) {
            cc.onDelaySample(BASE + queuingMicros, now);
            cc.onAck(MSS, cc.cwndBytes(), RTT, now);
            acked += MSS;
        }
        return now + RTT;
    }

    @Test
    void startsAtTwoPacketsAndStrictModeGrowsAtMostGainTimesMssPerRtt() {
        Ledbat cc = new Ledbat(params, false);
        assertEquals(2L * MSS, cc.cwndBytes());
        assertFalse(cc.inSlowStart());
        long now = 0;
        cc.onDelaySample(BASE, now);
        for (int rtt = 0; rtt < 200; rtt++) {
            long before = cc.cwndBytes();
            now = ackOneWindow(cc, now, 0);
            long growth = cc.cwndBytes() - before;
            assertTrue(growth <= Ledbat.GAIN * MSS + 1, "grew " + growth + " bytes in one RTT at cwnd " + before);
            assertTrue(growth >= 0, "shrank with no queue");
        }
        assertTrue(cc.cwndBytes() > 100L * MSS, "should have grown linearly, cwnd=" + cc.cwndBytes());
    }

    @Test
    void doesNotGrowWhenNotLimitedByTheWindow() {
        Ledbat cc = new Ledbat(params, false);
        long now = 0;
        for (int i = 0; i < 50; i++) {
            now = ackOneWindow(cc, now, 0);
        }
        long cwnd = cc.cwndBytes();
        for (int i = 0; i < 1000; i++) {
            cc.onDelaySample(BASE, now);
            cc.onAck(MSS, 3L * MSS, RTT, now);
            now += 1_000_000L;
        }
        assertEquals(cwnd, cc.cwndBytes(), "an application-limited flow must not inflate its window");
    }

    @Test
    void shrinksWhenQueuingDelayIsAboveTargetAndHoldsAtTarget() {
        Ledbat cc = new Ledbat(params, false);
        long now = 0;
        cc.onDelaySample(BASE, now);
        for (int i = 0; i < 60; i++) {
            now = ackOneWindow(cc, now, 0);
        }
        for (int i = 0; i < 4; i++) {
            cc.onDelaySample(BASE + (int) TARGET_MICROS, now);
        }
        long grown = cc.cwndBytes();
        now = ackOneWindow(cc, now, (int) TARGET_MICROS);
        assertEquals(grown, cc.cwndBytes(), 1, "at exactly the target the window holds");
        for (int i = 0; i < 10; i++) {
            now = ackOneWindow(cc, now, (int) (2 * TARGET_MICROS));
        }
        assertTrue(cc.cwndBytes() < grown - 5L * MSS, "above target the window must shrink: " + cc.cwndBytes());
        for (int i = 0; i < 500; i++) {
            now = ackOneWindow(cc, now, (int) (3 * TARGET_MICROS));
        }
        assertEquals(2L * MSS, cc.cwndBytes(), "never below MIN_CWND on ACKs");
    }

    @Test
    void halvesOnLossAtMostOncePerRtt() {
        Ledbat cc = new Ledbat(params, false);
        long now = 0;
        for (int i = 0; i < 40; i++) {
            now = ackOneWindow(cc, now, 0);
        }
        long before = cc.cwndBytes();
        assertTrue(cc.onLoss(now, RTT));
        assertEquals(before / 2, cc.cwndBytes(), 1);
        assertFalse(cc.onLoss(now + RTT / 2, RTT), "a second loss in the same RTT must not halve again");
        assertEquals(before / 2, cc.cwndBytes(), 1);
        assertTrue(cc.onLoss(now + RTT, RTT), "a loss one RTT later halves again");
        assertEquals(before / 4, cc.cwndBytes(), 2);
    }

    @Test
    void timeoutCollapsesToOnePacketAndAcksRestoreTheMinimum() {
        Ledbat cc = new Ledbat(params, true);
        long now = 0;
        for (int i = 0; i < 10; i++) {
            now = ackOneWindow(cc, now, 0);
        }
        cc.onTimeout(now);
        assertEquals(MSS, cc.cwndBytes());
        cc.onDelaySample(BASE, now);
        cc.onAck(MSS, MSS, RTT, now);
        assertTrue(cc.cwndBytes() >= 2L * MSS);
    }

    @Test
    void slowStartDoublesPerRttUntilDelayReachesHalfTheTarget() {
        Ledbat cc = new Ledbat(params, true);
        assertTrue(cc.inSlowStart());
        long now = 0;
        for (int rtt = 0; rtt < 5; rtt++) {
            long before = cc.cwndBytes();
            now = ackOneWindow(cc, now, 0);
            assertEquals(2 * before, cc.cwndBytes(), MSS, "slow start doubles per RTT");
        }
        now = ackOneWindow(cc, now, (int) (0.4 * TARGET_MICROS));
        assertTrue(cc.inSlowStart(), "below half the target slow start goes on");
        now = ackOneWindow(cc, now, (int) (0.6 * TARGET_MICROS));
        assertFalse(cc.inSlowStart(), "slow start must end above half the target");
        long after = cc.cwndBytes();
        ackOneWindow(cc, now, 0);
        assertTrue(cc.cwndBytes() - after <= MSS * 1.02, "after slow start growth is linear again: " + after + " -> " + cc.cwndBytes());
    }

    @Test
    void queuingDelayIsRelativeToBaseAcrossClockWrapAndSkew() {
        Ledbat cc = new Ledbat(params, false);
        int skewedBase = 0xFFFF_FF00; // the peer's clock makes raw samples wrap around 2^32
        cc.onDelaySample(skewedBase, 0);
        cc.onDelaySample(skewedBase + 5_000, 1);
        cc.onDelaySample(skewedBase + 5_000, 2);
        cc.onDelaySample(skewedBase + 5_000, 3);
        cc.onDelaySample(skewedBase + 5_000, 4);
        assertEquals(5_000, cc.queuingDelayMicros());
        assertEquals(Integer.toUnsignedLong(skewedBase), cc.baseDelayMicros());
    }

    @Test
    void baseDelayForgetsAMinimumOlderThanTenMinutes() {
        Ledbat cc = new Ledbat(params, false);
        long minute = 60_000_000_000L;
        cc.onDelaySample(BASE, 0);
        for (int m = 1; m <= 10; m++) {
            cc.onDelaySample(BASE + 20_000, m * minute);
        }
        assertEquals(Integer.toUnsignedLong(BASE + 20_000), cc.baseDelayMicros(),
                "after ten newer one-minute buckets the old minimum must be gone");
        assertEquals(0, cc.queuingDelayMicros());
    }

    @Test
    void queuingDelayNeverExceedsTheRoundTrip() {
        Ledbat cc = new Ledbat(params, false);
        cc.onDelaySample(BASE, 0);
        for (int i = 0; i < 4; i++) {
            cc.onDelaySample(BASE + 900_000, 1);
        }
        cc.onAck(MSS, 2L * MSS, 200_000_000L, 1);
        assertEquals(200_000, cc.queuingDelayMicros());
    }

    @Test
    void pacingRateSpreadsTheWindowOverOneRtt() {
        Ledbat cc = new Ledbat(params, false);
        long rate = cc.pacingRateBytesPerSecond(100_000_000L);
        assertEquals((long) (2 * MSS * 1.25 * 10), rate, 1);
        assertEquals(Long.MAX_VALUE, cc.pacingRateBytesPerSecond(-1));
    }
}
