package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.wire.SelectiveAckBitmap;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The connection's three buffers on their own: send queue, reorder buffer, outstanding packets. */
class CoreBuffersTest {

    // ------------------------------------------------------------------ SendQueue

    @Test
    void theSendQueueHandsOutOnlyFlushedBytesInOrderAcrossChunks() {
        SendQueue q = new SendQueue();
        ByteBuf a = Unpooled.copiedBuffer("hello ", StandardCharsets.US_ASCII);
        ByteBuf b = Unpooled.copiedBuffer("world!", StandardCharsets.US_ASCII);
        q.add(a, 6);
        q.add(b, 5); // takes "world", leaves "!" in the caller's buffer
        assertEquals(0, a.readableBytes());
        assertEquals(1, b.readableBytes());
        assertEquals(11, q.queuedBytes());
        assertEquals(0, q.flushedBytes());
        ByteBuf out = Unpooled.buffer();
        assertThrows(IllegalStateException.class, () -> q.transferTo(out, 0, 1), "nothing is flushed yet");
        q.flush();
        q.transferTo(out, 0, 8);
        assertEquals("hello wo", out.toString(0, 8, StandardCharsets.US_ASCII));
        assertEquals(3, q.queuedBytes());
        q.releaseAll();
        assertEquals(0, q.queuedBytes());
        assertEquals(1, a.refCnt(), "the queue released its slices");
        assertEquals(1, b.refCnt());
        a.release();
        b.release();
        out.release();
    }

    // ------------------------------------------------------------------ ReorderBuffer

    @Test
    void theReorderBufferHoldsEarlyPacketsAcrossTheSequenceWrapAndReportsThemAsSelectiveAcks() {
        ReorderBuffer r = new ReorderBuffer();
        int next = 0xFFFE; // the next expected packet; the ones after it wrap to 0
        for (int d : new int[]{2, 5, 40}) { // 40 makes the ring grow past its initial 16 slots
            ByteBuf p = payload(d);
            r.put(UtpWire.seqAdd(next, d), d, p, ReceivedPayloads.charge(p));
        }
        assertTrue(r.contains(UtpWire.seqAdd(next, 5)));
        assertFalse(r.contains(UtpWire.seqAdd(next, 3)));
        assertEquals(3 * ReceivedPayloads.charge(payload(0)), r.bufferedBytes(), "charged by memory held");
        SelectiveAckBitmap bitmap = new SelectiveAckBitmap();
        r.fillSelectiveAck(UtpWire.seqAdd(next, -1), bitmap); // ack_nr = next - 1: bit i is next + 1 + i
        assertTrue(bitmap.get(1), "next + 2");
        assertTrue(bitmap.get(4), "next + 5");
        assertFalse(bitmap.get(0));
        assertNull(r.take(next), "the gap itself is not held");
        ByteBuf five = r.take(UtpWire.seqAdd(next, 5));
        assertEquals(5, five.getByte(0));
        five.release();
        r.releaseAll();
        assertTrue(r.isEmpty());
        assertEquals(0, r.bufferedBytes());
    }

    private static ByteBuf payload(int tag) {
        return Unpooled.buffer(16, 16).writeByte(tag).writeZero(15);
    }

    // ------------------------------------------------------------------ OutstandingPackets

    @Test
    void outstandingPacketsKeepEachPacketInFlightLostOrSackedAndCountBytesAccordingly() {
        OutstandingPackets o = new OutstandingPackets();
        int first = 0xFFF0;
        ByteBuf[] sent = new ByteBuf[40];
        for (int k = 0; k < 40; k++) {
            sent[k] = Unpooled.buffer(100);
            o.add(UtpWire.seqAdd(first, k), sent[k], 100);
            o.onSent(UtpWire.seqAdd(first, k), 1_000 + k, k + 1);
        }
        assertEquals(4000, o.bytesInFlight());
        assertEquals(40, o.packetsInFlight());
        assertThrows(IllegalStateException.class, () -> o.add(UtpWire.seqAdd(first, 41), Unpooled.buffer(1), 1),
                "sequence numbers stay contiguous");

        int lost = UtpWire.seqAdd(first, 20); // wraps past 0xFFFF
        o.markLost(lost);
        assertEquals(3900, o.bytesInFlight());
        assertEquals(lost, o.firstLost());
        assertEquals(100, o.markSacked(UtpWire.seqAdd(first, 21)));
        assertEquals(0, o.markSacked(UtpWire.seqAdd(first, 21)), "a second selective ack adds nothing");
        assertEquals(3800, o.bytesInFlight());
        assertEquals(3900, o.unackedPayloadBytes(), "lost bytes are still unacknowledged");

        o.onSent(lost, 5_000, 41); // retransmitted
        assertEquals(2, o.transmissions(lost));
        assertEquals(-1, o.firstLost());
        assertTrue(o.isInFlight(lost));

        for (int k = 0; k < 22; k++) {
            int acked = o.removeFirst();
            assertEquals(k == 21 ? 0 : 100, acked, "the sacked packet was counted when it was sacked");
        }
        assertEquals(UtpWire.seqAdd(first, 22), o.firstSeq());
        assertEquals(18, o.count());
        assertEquals(0, sent[0].refCnt(), "an acknowledged packet's buffer is released");
        int thirty = UtpWire.seqAdd(first, 30);
        assertSame(sent[30], o.buffer(thirty), "a packet written elsewhere is held whole");
        assertEquals(0, o.offset(thirty));
        assertEquals(sent[30].readableBytes(), o.size(thirty));
        o.releaseAll();
        assertTrue(o.isEmpty());
        assertEquals(0, o.bytesInFlight());
        assertEquals(0, sent[39].refCnt());
    }

    // ------------------------------------------------------------------ PacketBuffers

    @Test
    void packetsAreWrittenSideBySideInOneSlabWhichStartsOverOnlyWhenNobodyHoldsAPartOfIt() {
        PacketBuffers slabs = new PacketBuffers(UnpooledByteBufAllocator.DEFAULT, 1500);
        OutstandingPackets o = new OutstandingPackets(slabs);
        o.add(1, 1500, 1480);
        ByteBuf slab = o.buffer(1);
        assertEquals(0, o.offset(1));
        assertEquals(1500, o.size(1));
        assertEquals(43 * 1500, slab.capacity(), "a slab holds one full GSO run: 43 packets of 1,500 bytes in 65,507");
        o.add(2, 100, 80);
        assertSame(slab, o.buffer(2), "in the same slab");
        assertEquals(1500, o.offset(2), "the next packet starts where the last one ends");
        assertEquals(1, slab.refCnt(), "one reference for the slab, none per packet");
        ByteBuf onTheWire = slab.retainedSlice(o.offset(2), o.size(2)); // a run the socket has not written yet
        o.add(3, 2000, 1980); // larger than a packet: a buffer of its own
        ByteBuf odd = o.buffer(3);
        assertNotSame(slab, odd);
        assertEquals(2000, odd.capacity(), "not a part of a slab: a buffer of its own");
        assertEquals(0, o.offset(3));

        o.removeFirst();
        o.removeFirst();
        o.removeFirst(); // nothing outstanding, but the socket still holds the second packet
        assertEquals(0, odd.refCnt());
        assertEquals(0, slabs.used(), "a slab still held elsewhere is let go, not written over");
        assertEquals(1, slab.refCnt(), "the socket's reference only");
        o.add(4, 1500, 1480);
        ByteBuf fresh = o.buffer(4);
        assertNotSame(slab, fresh, "a new slab");
        onTheWire.release();
        assertEquals(0, slab.refCnt(), "the old slab went back once the socket let go of its last packet");
        o.removeFirst(); // nothing outstanding and nobody holds a part: the same slab starts over
        o.add(5, 1500, 1480);
        assertSame(fresh, o.buffer(5));
        assertEquals(0, o.offset(5), "written over from its start");

        for (int k = 0; k < 43; k++) { // fills the slab: the 43rd packet's successor needs another
            o.add(6 + k, 1500, 1480);
        }
        assertSame(fresh, o.buffer(47));
        assertNotSame(fresh, o.buffer(48), "a full slab gives way to the next");
        ByteBuf last = o.buffer(48);
        o.removeFirst(); // packet 5: the full slab still holds 42 packets
        assertEquals(1, fresh.refCnt(), "a slab that is no longer current stays while it holds packets");
        o.releaseAll();
        assertEquals(0, fresh.refCnt(), "released with the connection");
        assertEquals(0, last.refCnt());
    }
}
