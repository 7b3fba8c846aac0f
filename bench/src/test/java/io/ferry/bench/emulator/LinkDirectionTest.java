package io.ferry.bench.emulator;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The per-direction model in virtual time: loss first, then a drop-tail queue drained at the rate, then the delay. */
class LinkDirectionTest {

    private static final long MS = 1_000_000;

    @Test
    void backToBackPacketsLeaveOneSerializationTimeApartAfterTheDelay() {
        // 8 Mbit/s: 1000 bytes take 1 ms on the wire.
        LinkDirection link = new LinkDirection(new LinkModel(0, 8_000_000, 10_000, Duration.ofMillis(20), 1));
        long now = System.nanoTime() + 1_000 * MS;
        long first = link.offer(1_000, now);
        long second = link.offer(1_000, now);
        assertEquals(now + MS + 20 * MS, first);
        assertEquals(first + MS, second);
    }

    @Test
    void aFullQueueDropsTheTailAndCountsIt() {
        LinkDirection link = new LinkDirection(new LinkModel(0, 8_000_000, 3_000, Duration.ZERO, 1));
        long now = System.nanoTime() + 1_000 * MS;
        assertTrue(link.offer(1_000, now) >= 0);
        assertTrue(link.offer(1_000, now) >= 0);
        assertTrue(link.offer(1_000, now) >= 0);
        assertEquals(LinkDirection.QUEUE_FULL, link.offer(1_000, now));
        assertTrue(link.offer(1_000, now + 2 * MS) >= 0, "two packets have left by then, so there is room");
        assertEquals(1, link.statistics().queueDrops());
        assertEquals(4, link.statistics().accepted());
    }

    @Test
    void seededLossIsRepeatableAndNearTheAskedRate() {
        LinkModel model = new LinkModel(0.25, 0, 0, Duration.ZERO, 99);
        LinkDirection a = new LinkDirection(model);
        LinkDirection b = new LinkDirection(model);
        long now = System.nanoTime();
        for (int i = 0; i < 100_000; i++) {
            assertEquals(a.offer(100, now), b.offer(100, now));
        }
        assertEquals(0.25, a.statistics().lost() / 100_000.0, 0.01);
    }

    @Test
    void anUnlimitedLinkOnlyDelays() {
        LinkDirection link = new LinkDirection(LinkModel.delay(Duration.ofMillis(7)));
        long now = System.nanoTime();
        for (int i = 0; i < 1_000; i++) {
            assertEquals(now + 7 * MS, link.offer(65_000, now));
        }
    }
}
