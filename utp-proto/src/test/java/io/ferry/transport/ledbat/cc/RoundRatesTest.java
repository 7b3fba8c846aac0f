package io.ferry.transport.ledbat.cc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class RoundRatesTest {

    private static final long S = 1_000_000_000L;

    @Test
    void theRecentMaximumCoversOnlyTheLastRounds() {
        RoundRates r = new RoundRates(4, 30 * S);
        assertEquals(0, r.recentMax(), "no round ended yet");
        r.add(900, 0);
        for (int i = 1; i <= 4; i++) {
            r.add(100 * i, i * S);
        }
        assertEquals(400, r.recentMax(), "the 900 of five rounds ago is forgotten");
        assertEquals(400, r.last());
        assertEquals(900, r.max(), "the long memory still has it");
    }

    @Test
    void theLongMemoryForgetsAfterTwoBuckets() {
        RoundRates r = new RoundRates(4, 30 * S);
        r.add(1_000, 0);
        r.add(10, 20 * S);
        assertEquals(1_000, r.max());
        r.add(20, 40 * S);
        assertEquals(20, r.max(), "the 1,000 of 40 s ago is older than the memory");
    }
}
