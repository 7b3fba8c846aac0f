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
        assertThrows(IllegalStateException.class, () -> q.transferTo(out, 1), "nothing is flushed yet");
        q.flush();
        q.transferTo(out, 8);
        assertEquals("hello wo", out.toString(StandardCharsets.US_ASCII));
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
        assertSame(sent[30], o.packet(UtpWire.seqAdd(first, 30)));
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
        ByteBuf first = o.newPacketBuffer(1500);
        assertEquals(1500, first.capacity());
        o.add(1, first.writeZero(1500), 1480);
        ByteBuf second = o.newPacketBuffer(100);
        assertEquals(first.memoryAddress() + 1500, second.memoryAddress(), "the next packet starts where the last one ends");
        assertSame(slabOf(first), slabOf(second), "in the same slab");
        ByteBuf slab = slabOf(first);
        assertEquals(43 * 1500, slab.capacity(), "a slab holds one full GSO run: 43 packets of 1,500 bytes in 65,507");
        ByteBuf onTheWire = second.writeZero(100).retain(); // a transmission the socket has not written yet
        o.add(2, second, 80);
        ByteBuf odd = o.newPacketBuffer(2000); // larger than a packet: a buffer of its own
        assertEquals(2000, odd.capacity());
        assertEquals(2000, slabOf(odd).capacity(), "not a slice of a slab: a buffer of its own");
        o.add(3, odd.writeZero(2000), 1980);

        o.removeFirst();
        o.removeFirst();
        o.removeFirst(); // nothing outstanding, but the socket still holds the second packet
        assertEquals(0, odd.refCnt());
        assertEquals(0, slabs.used(), "a slab still held elsewhere is let go, not written over");
        ByteBuf fresh = o.newPacketBuffer(1500);
        assertNotSame(slab, slabOf(fresh), "a new slab");
        onTheWire.release();
        assertEquals(0, slab.refCnt(), "the old slab went back once the socket let go of its last packet");
        o.add(4, fresh.writeZero(1500), 1480);
        o.removeFirst(); // nothing outstanding and nobody holds a part: the same slab starts over
        ByteBuf again = o.newPacketBuffer(1500);
        assertEquals(fresh.memoryAddress(), again.memoryAddress(), "written over from its start");
        o.add(5, again.writeZero(1500), 1480);

        for (int k = 0; k < 43; k++) { // fills the slab: the 43rd packet's successor needs another
            o.add(6 + k, o.newPacketBuffer(1500).writeZero(1500), 1480);
        }
        assertNotSame(slabOf(again), slabOf(o.packet(48)), "a full slab gives way to the next");
        ByteBuf last = slabOf(o.packet(48));
        o.releaseAll();
        assertEquals(0, slabOf(fresh).refCnt(), "released with the connection");
        assertEquals(0, last.refCnt());
    }

    /** The buffer a packet is a slice of, through the leak detector's wrappers (paranoid in tests). */
    private static ByteBuf slabOf(ByteBuf packet) {
        ByteBuf b = packet;
        for (ByteBuf outer; (outer = b.unwrap()) != null; ) {
            b = outer;
        }
        return b;
    }
}
