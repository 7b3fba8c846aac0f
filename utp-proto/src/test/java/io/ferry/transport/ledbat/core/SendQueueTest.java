package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SendQueueTest {

    @Test
    void aBufferSomeoneElseStillHoldsIsCopiedSoItsOwnerMayReuseItOnceTheWriteIsDone() {
        SendQueue queue = new SendQueue();
        ByteBuf held = Unpooled.directBuffer(8).writeBytes(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        held.retain(); // the writer keeps it, as Netty's SocketBufReleaseTest does
        queue.add(held, 8);
        held.release(); // the channel's reference, let go when the write completes
        assertEquals(1, held.refCnt(), "the queue holds no reference to the writer's buffer");
        held.setByte(0, 99); // the owner reuses it
        queue.flush();
        ByteBuf out = Unpooled.buffer(8);
        queue.transferTo(out, 0, 8);
        assertEquals(1, out.getByte(0), "the queued bytes are the ones written");
        held.release();
        out.release();
    }

    @Test
    void aBufferHandedOverWholeIsKeptWithoutACopy() {
        SendQueue queue = new SendQueue();
        ByteBuf handed = Unpooled.directBuffer(8).writeZero(8);
        queue.add(handed, 8);
        assertEquals(2, handed.refCnt(), "a retained slice of the same memory");
        handed.release();
        queue.flush();
        ByteBuf out = Unpooled.buffer(8);
        queue.transferTo(out, 0, 8);
        assertEquals(0, handed.refCnt(), "released once its bytes are in a packet");
        out.release();
    }
}
