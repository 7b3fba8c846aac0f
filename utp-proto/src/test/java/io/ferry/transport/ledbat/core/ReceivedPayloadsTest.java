package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

/** When a payload is sliced or copied, and what it is charged; and how delivered charges are released. */
class ReceivedPayloadsTest {
    private final UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(false);

    @Test
    void aFullPacketInItsOwnBufferIsSlicedAndChargedTheWholeBuffer() {
        ByteBuf datagram = alloc.heapBuffer(2048, 2048).writeZero(1400);
        ByteBuf kept = ReceivedPayloads.keep(datagram, 20, 1380, alloc);
        assertSame(datagram, kept.unwrap(), "a slice of the datagram, no copy");
        assertEquals(2048 + ReceivedPayloads.PER_BUFFER_OVERHEAD, ReceivedPayloads.charge(kept));
        datagram.release();
        assertEquals(1, kept.refCnt(), "the slice keeps the datagram alive");
        kept.release();
        assertEquals(0, datagram.refCnt());
    }

    @Test
    void aSmallPayloadOrOneInASharedBufferIsCopiedToItsOwnSize() {
        ByteBuf datagram = alloc.heapBuffer(2048, 2048).writeZero(21);
        datagram.setByte(20, 'z');
        ByteBuf tiny = ReceivedPayloads.keep(datagram, 20, 1, alloc);
        assertNotSame(datagram, tiny.unwrap());
        assertEquals('z', tiny.getByte(0));
        assertEquals(1 + ReceivedPayloads.PER_BUFFER_OVERHEAD, ReceivedPayloads.charge(tiny));
        datagram.release();
        tiny.release();

        ByteBuf coalesced = alloc.heapBuffer(65536, 65536).writeZero(46 * 1400); // as UDP_GRO or recvmmsg fill one buffer
        ByteBuf segment = coalesced.retainedSlice(1400, 1400);
        ByteBuf kept = ReceivedPayloads.keep(segment, 20, 1380, alloc);
        assertEquals(1380 + ReceivedPayloads.PER_BUFFER_OVERHEAD, ReceivedPayloads.charge(kept), "copied: the 64 KiB buffer is not pinned");
        segment.release();
        coalesced.release();
        assertEquals(0, coalesced.refCnt());
        kept.release();
    }

    @Test
    void deliveredChargesAreReleasedOldestFirstAndPartlyInProportion() {
        UnconsumedCharges charges = new UnconsumedCharges();
        for (int i = 0; i < 40; i++) { // past the initial ring size
            charges.add(100, 300);
        }
        assertEquals(4000, charges.bytes());
        assertEquals(12_000, charges.charge());
        charges.consume(150); // one and a half buffers
        assertEquals(3850, charges.bytes());
        assertEquals(12_000 - 300 - 150, charges.charge());
        charges.consume(3850);
        assertEquals(0, charges.bytes());
        assertEquals(0, charges.charge(), "nothing stays charged once everything is consumed");
        charges.consume(10); // reports beyond what was delivered are ignored
        assertEquals(0, charges.charge());
        charges.add(5, 133);
        charges.clear();
        assertEquals(0, charges.charge());
    }
}
