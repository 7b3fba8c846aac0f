package io.ferry.transport.ledbat.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UtpConfigTest {

    @Test
    void defaultsAvoidFragmentationAndAreSizedForThroughput() {
        UtpConfig c = UtpConfig.defaults();
        assertEquals(1400, c.packetSize());
        assertEquals(1380, c.maxPayloadSize());
        assertEquals(4 * 1024 * 1024, c.sendBufferSize());
        assertEquals(4 * 1024 * 1024, c.receiveBufferSize());
        assertEquals(Duration.ofMillis(60).toNanos(), c.targetDelayNanos());
        assertEquals("ledbat", c.congestionControl());
        assertEquals(Duration.ofMillis(500).toNanos(), c.minRtoNanos());
        assertEquals(10, c.maxRetransmits());
    }

    @Test
    void builderCopiesAndOverrides() {
        UtpConfig c = UtpConfig.builder().packetSize(1200).minRto(Duration.ofMillis(200)).build();
        UtpConfig d = c.toBuilder().idleTimeout(Duration.ZERO).build();
        assertEquals(1200, d.packetSize());
        assertEquals(Duration.ofMillis(200).toNanos(), d.minRtoNanos());
        assertEquals(0, d.idleTimeoutNanos());
        assertTrue(d.toString().contains("packetSize=1200"));
    }

    @Test
    void outOfRangeValuesAreRejectedNamingFieldAndRange() {
        assertRejected("packetSize", () -> UtpConfig.builder().packetSize(100));
        assertRejected("packetSize", () -> UtpConfig.builder().packetSize(70_000));
        assertRejected("sendBufferSize", () -> UtpConfig.builder().sendBufferSize(10));
        assertRejected("receiveBufferSize", () -> UtpConfig.builder().receiveBufferSize(Integer.MAX_VALUE));
        assertRejected("targetDelay", () -> UtpConfig.builder().targetDelay(Duration.ofMillis(150)));
        assertRejected("targetDelay", () -> UtpConfig.builder().targetDelay(null));
        assertRejected("congestionControl", () -> UtpConfig.builder().congestionControl("reno"));
        assertRejected("minRto", () -> UtpConfig.builder().minRto(Duration.ZERO));
        assertRejected("maxRetransmits", () -> UtpConfig.builder().maxRetransmits(0));
        assertRejected("connectTimeout", () -> UtpConfig.builder().connectTimeout(Duration.ofHours(1)));
        assertRejected("idleTimeout", () -> UtpConfig.builder().idleTimeout(Duration.ofSeconds(-1)));
        assertRejected("keepAliveInterval", () -> UtpConfig.builder().keepAliveInterval(Duration.ofDays(2)));
        assertRejected("delayedAckTimeout", () -> UtpConfig.builder().delayedAckTimeout(Duration.ofSeconds(1)));
        assertRejected("closeTimeout", () -> UtpConfig.builder().closeTimeout(Duration.ZERO));
        assertRejected("maxRto", () -> UtpConfig.builder().minRto(Duration.ofSeconds(2)).maxRto(Duration.ofSeconds(1)).build());
        assertRejected("receiveBufferSize", () -> UtpConfig.builder().packetSize(9000).receiveBufferSize(4096).build());
        assertThrows(NullPointerException.class, () -> UtpConfig.builder().allocator(null));
    }

    private static void assertRejected(String field, Executable e) {
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, e);
        assertTrue(ex.getMessage().startsWith(field + " must be"), ex.getMessage());
        assertTrue(ex.getMessage().contains("["), "message names the range: " + ex.getMessage());
    }
}
