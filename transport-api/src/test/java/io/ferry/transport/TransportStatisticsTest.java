package io.ferry.transport;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TransportStatisticsTest {

    @Test
    void unsetValuesAreUnknownNotZero() {
        TransportStatistics s = TransportStatistics.builder("tcp", "nio").bytesSent(10).build();
        assertEquals(10, s.bytesSent());
        assertTrue(s.smoothedRtt().isEmpty());
        assertTrue(s.congestionWindowBytes().isEmpty());
        assertTrue(s.queuingDelay().isEmpty());
        assertEquals("tcp/nio sent=10 received=0", s.toString());
    }

    @Test
    void convertsMicrosecondsToDurations() {
        TransportStatistics s = TransportStatistics.builder("utp", "nio")
                .smoothedRttMicros(1_500).queuingDelayMicros(25_000).congestionWindowBytes(64_000).build();
        assertEquals(Duration.ofNanos(1_500_000), s.smoothedRtt().orElseThrow());
        assertEquals(Duration.ofMillis(25), s.queuingDelay().orElseThrow());
        assertEquals(64_000, s.congestionWindowBytes().getAsLong());
    }

    @Test
    void rejectsNegativeCounts() {
        assertThrows(IllegalArgumentException.class, () -> TransportStatistics.builder("tcp", "nio").bytesSent(-1));
    }
}
