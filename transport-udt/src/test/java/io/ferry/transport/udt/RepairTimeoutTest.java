package io.ferry.transport.udt;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RepairTimeoutTest {

    @Test
    void whileThePeersWindowHoldsTheSenderUdtsOwnTimerStands() {
        assertEquals(300_000, RepairTimeout.micros(20, 0, true));
        assertEquals(600_000, RepairTimeout.micros(20, 1, true));
        // a long path: RTT + 4 RTTVar (taken as 2 RTT) + 10 ms per expiry
        assertEquals(410_000, RepairTimeout.micros(200, 0, true));
    }

    @Test
    void aHoleStuckBehindTheSendersOwnWindowIsResentAfterTwoRoundTripsAndTwoAckIntervals() {
        assertEquals(60_000, RepairTimeout.micros(20, 0, false));
        assertEquals(120_000, RepairTimeout.micros(20, 1, false));
        assertEquals(40_000, RepairTimeout.micros(0.1, 0, false), "loopback: the least wait");
    }

    @Test
    void theRepairTimerNeverWaitsLongerThanUdtsOwnAndReachesItsDeadPeerRuleAtTheSameExpiry() {
        for (double rtt : new double[] {0.1, 20, 150, 600}) {
            for (int silent = 0; silent <= 40; silent++) {
                assertTrue(RepairTimeout.micros(rtt, silent, false) <= RepairTimeout.micros(rtt, silent, true), rtt + " ms, " + silent);
            }
            // UDT declares the peer dead after more than 16 expiries once a wait exceeds 5 s
            assertTrue(RepairTimeout.micros(rtt, 16, false) > 5_000_000, rtt + " ms");
        }
    }

    @Test
    void anUnknownRttIsUdtsFirstGuess() {
        assertEquals(RepairTimeout.micros(DelayRateControl.UDT_INITIAL_RTT_MS, 0, false), RepairTimeout.micros(Double.NaN, 0, false));
        assertEquals(RepairTimeout.micros(DelayRateControl.UDT_INITIAL_RTT_MS, 0, false), RepairTimeout.micros(-1, 0, false));
    }
}
