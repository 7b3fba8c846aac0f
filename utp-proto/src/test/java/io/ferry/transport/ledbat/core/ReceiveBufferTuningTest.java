package io.ferry.transport.ledbat.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReceiveBufferTuningTest {
    private static final long MS = 1_000_000L;
    private static final long MIB = 1024 * 1024;

    /** Consumes {@code perRoundTrip} bytes in ten pieces over each of {@code rounds} round trips of {@code rtt}. */
    private static long consume(ReceiveBufferTuning t, long start, long rtt, long perRoundTrip, int rounds, double charge) {
        long now = start;
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < 10; i++) {
                now += rtt / 10;
                t.onRttSample(rtt);
                t.onConsumed(perRoundTrip / 10, charge, now);
            }
        }
        return now;
    }

    @Test
    void aFlowThatFillsTheWindowEachRoundTripDoublesTheBuffer() {
        ReceiveBufferTuning t = new ReceiveBufferTuning(4 * MIB, 32 * MIB);
        // 2 MB of payload per round trip at a charge of 2 bytes per byte: 4 MB of memory
        long now = consume(t, 0, 150 * MS, 2_000_000, 2, 2.0);
        assertEquals(8_000_000, t.limit(), "twice one round trip's memory");
        consume(t, now, 150 * MS, 4_000_000, 2, 2.0);
        assertEquals(16_000_000, t.limit());
    }

    @Test
    void aFlowUsingLessThanHalfTheBufferLeavesIt() {
        ReceiveBufferTuning t = new ReceiveBufferTuning(4 * MIB, 32 * MIB);
        consume(t, 0, 150 * MS, MIB, 20, 1.5);
        assertEquals(4 * MIB, t.limit());
    }

    @Test
    void theBufferStopsAtItsMaximumAndNeverShrinks() {
        ReceiveBufferTuning t = new ReceiveBufferTuning(4 * MIB, 10 * MIB);
        long now = consume(t, 0, 100 * MS, 20 * MIB, 3, 1.0);
        assertEquals(10 * MIB, t.limit());
        assertFalse(t.onConsumed(1, 1.0, now + 10_000 * MS));
        consume(t, now + 10_000 * MS, 100 * MS, 1024, 30, 1.0);
        assertEquals(10 * MIB, t.limit(), "a flow that slowed down does not shrink it");
    }

    @Test
    void withoutARoundTripSampleNothingGrows() {
        ReceiveBufferTuning t = new ReceiveBufferTuning(4 * MIB, 32 * MIB);
        long now = 0;
        for (int i = 0; i < 100; i++) {
            now += 10 * MS;
            assertFalse(t.onConsumed(MIB, 2.0, now));
        }
        assertEquals(4 * MIB, t.limit());
    }

    @Test
    void aMeasurementThatRanLongIsScaledToOneRoundTrip() {
        ReceiveBufferTuning t = new ReceiveBufferTuning(4 * MIB, 32 * MIB);
        t.onRttSample(100 * MS);
        t.onConsumed(1, 1.0, 0); // starts the measurement
        // 6 MiB over ten round trips (the application paused): 0.6 MiB per round trip, no growth
        assertFalse(t.onConsumed(6 * MIB, 1.0, 1_000 * MS));
        assertEquals(4 * MIB, t.limit());
        // the same 6 MiB within one round trip: 12 MiB
        assertTrue(t.onConsumed(6 * MIB, 1.0, 1_100 * MS));
        assertEquals(12 * MIB, t.limit());
    }
}
