package io.ferry.transport.udt;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RepairTimeoutTest {

    @Test
    void unlessAStuckHoleIsLikelyUdtsOwnTimerStands() {
        assertEquals(300_000, RepairTimeout.micros(20, 0, false));
        assertEquals(600_000, RepairTimeout.micros(20, 1, false));
        // a long path: RTT + 4 RTTVar (taken as 2 RTT) + 10 ms per expiry
        assertEquals(410_000, RepairTimeout.micros(200, 0, false));
    }

    @Test
    void aLikelyStuckHoleIsResentAfterTwoRoundTripsAndTwoAckIntervals() {
        assertEquals(60_000, RepairTimeout.micros(20, 0, true));
        assertEquals(120_000, RepairTimeout.micros(20, 1, true));
        assertEquals(140_000, RepairTimeout.micros(60, 0, true));
        assertEquals(60_000, RepairTimeout.micros(0.1, 0, true), "loopback: the least wait");
    }

    @Test
    void theRepairTimerNeverWaitsLongerThanUdtsOwnAndReachesItsDeadPeerRuleAtTheSameExpiry() {
        for (double rtt : new double[] {0.1, 20, 150, 600}) {
            for (int silent = 0; silent <= 40; silent++) {
                assertTrue(RepairTimeout.micros(rtt, silent, true) <= RepairTimeout.micros(rtt, silent, false), rtt + " ms, " + silent);
            }
            // UDT declares the peer dead after more than 16 expiries once a wait exceeds 5 s
            assertTrue(RepairTimeout.micros(rtt, 16, true) > 5_000_000, rtt + " ms");
        }
    }

    @Test
    void anUnknownRttIsUdtsFirstGuess() {
        assertEquals(RepairTimeout.micros(DelayRateControl.UDT_INITIAL_RTT_MS, 0, true), RepairTimeout.micros(Double.NaN, 0, true));
        assertEquals(RepairTimeout.micros(DelayRateControl.UDT_INITIAL_RTT_MS, 0, true), RepairTimeout.micros(-1, 0, true));
    }
}
