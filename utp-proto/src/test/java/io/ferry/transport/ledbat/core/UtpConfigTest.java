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
    void buffersGrowToTheirMaximumUnlessTheirSizeWasSet() {
        UtpConfig d = UtpConfig.defaults();
        assertEquals(UtpConfig.DEFAULT_BUFFER_MAX, d.sendBufferMax());
        assertEquals(UtpConfig.DEFAULT_BUFFER_MAX, d.receiveBufferMax());
        UtpConfig fixed = UtpConfig.builder().sendBufferSize(1 << 20).receiveBufferSize(2 << 20).build();
        assertEquals(1 << 20, fixed.sendBufferMax(), "a size set alone is fixed, as SO_SNDBUF locks TCP's");
        assertEquals(2 << 20, fixed.receiveBufferMax());
        UtpConfig bounded = UtpConfig.builder().receiveBufferSize(1 << 20).receiveBufferMax(8 << 20).sendBufferMax(64 << 20).build();
        assertEquals(8 << 20, bounded.receiveBufferMax());
        assertEquals(4 << 20, bounded.sendBufferSize());
        assertEquals(64 << 20, bounded.sendBufferMax());
        assertEquals(2 << 20, fixed.toBuilder().packetSize(1200).build().receiveBufferMax(), "toBuilder keeps a fixed size fixed");
        assertEquals(UtpConfig.DEFAULT_BUFFER_MAX, d.toBuilder().packetSize(1200).build().receiveBufferMax());
        assertEquals(3 << 20, d.toBuilder().receiveBufferSize(3 << 20).build().receiveBufferMax());
        assertTrue(bounded.toString().contains("receiveBufferMax=8388608"), bounded.toString());
        UtpConfig small = UtpConfig.builder().sendBufferMax(1 << 20).receiveBufferMax(2 << 20).build();
        assertEquals(1 << 20, small.sendBufferSize(), "a maximum below the default size, no size set: it is the size");
        assertEquals(2 << 20, small.receiveBufferSize());
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
        assertRejected("receiveBufferMax", () -> UtpConfig.builder().receiveBufferMax(512));
        assertRejected("receiveBufferMax", () -> UtpConfig.builder().receiveBufferSize(8 << 20).receiveBufferMax(4 << 20).build());
        assertRejected("sendBufferMax", () -> UtpConfig.builder().sendBufferSize(2 << 20).sendBufferMax(1 << 20).build());
        assertThrows(NullPointerException.class, () -> UtpConfig.builder().allocator(null));
    }

    private static void assertRejected(String field, Executable e) {
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, e);
        assertTrue(ex.getMessage().startsWith(field + " must be"), ex.getMessage());
        assertTrue(ex.getMessage().contains("["), "message names the range: " + ex.getMessage());
    }
}
