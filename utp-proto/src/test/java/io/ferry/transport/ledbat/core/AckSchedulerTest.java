package io.ferry.transport.ledbat.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** When {@link AckScheduler} says an acknowledgement is due, packet by packet and inside read batches. */
class AckSchedulerTest {
    private static final long MS = 1_000_000L;

    private final AckScheduler acks = new AckScheduler(20 * MS);

    @Test
    void everySecondInOrderPacketIsAcknowledgedAtOnceAndASingleOneAfterTheDelay() {
        acks.onInOrderPacket(0);
        assertFalse(acks.isDue(0));
        assertEquals(20 * MS, acks.deadlineNanos());
        assertTrue(acks.isDue(20 * MS), "the delayed-ACK timer");
        acks.onInOrderPacket(1);
        assertTrue(acks.isDue(1), "the second packet");
        acks.onAckSent();
        assertFalse(acks.isDue(2));
        assertEquals(Long.MAX_VALUE, acks.deadlineNanos());
    }

    @Test
    void insideAReadBatchInOrderPacketsAreAcknowledgedOnceWhenItEnds() {
        acks.beginBatch();
        for (int i = 0; i < 10; i++) {
            acks.onInOrderPacket(i);
            assertFalse(acks.isDue(i), "packet " + i + " of the batch");
        }
        acks.endBatch();
        assertTrue(acks.isDue(10));
    }

    @Test
    void aLongBatchIsAcknowledgedEveryThirtyTwoPackets() {
        acks.beginBatch();
        int due = 0;
        for (int i = 0; i < 100; i++) {
            acks.onInOrderPacket(i);
            if (acks.isDue(i)) {
                due++;
                acks.onAckSent();
            }
        }
        assertEquals(100 / AckScheduler.PACKETS_PER_ACK_IN_BATCH, due);
        acks.endBatch();
        assertTrue(acks.isDue(100), "the four left over");
    }

    @Test
    void aBatchOfOnePacketKeepsTheDelayedAck() {
        acks.beginBatch();
        acks.onInOrderPacket(0);
        acks.endBatch();
        assertFalse(acks.isDue(0));
        assertEquals(20 * MS, acks.deadlineNanos());
    }

    @Test
    void anIrregularPacketInsideABatchIsStillAcknowledgedAtOnce() {
        acks.beginBatch();
        acks.onInOrderPacket(0);
        acks.onIrregularPacket();
        assertTrue(acks.isDue(0), "out of order: the sender's loss detection needs it now");
        acks.onAckSent();
        acks.onInOrderPacket(1);
        assertTrue(acks.isDue(1), "and the quick ACKs after it, batch or not");
    }
}
