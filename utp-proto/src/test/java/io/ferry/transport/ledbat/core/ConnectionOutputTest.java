package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The output queue's datagrams: owned buffers and places in a connection's slab, their order and references. */
class ConnectionOutputTest {

    /** Records what reaches the driver: the first byte of each datagram, and the slab's count while it was handed over. */
    private static final class Recorder implements ConnectionSink {
        final List<String> sent = new ArrayList<>();
        Runnable onFirstPart;

        @Override
        public void send(ByteBuf packet) {
            sent.add("own:" + packet.getByte(packet.readerIndex()));
            packet.release();
        }

        @Override
        public void sendPart(ByteBuf whole, int offset, int length) {
            assertTrue(whole.refCnt() > 0, "a place's buffer is valid while it is handed over");
            sent.add("part:" + whole.getByte(offset) + "/" + length);
            if (onFirstPart != null) {
                Runnable r = onFirstPart;
                onFirstPart = null;
                r.run();
            }
        }

        @Override
        public void connected() {
        }

        @Override
        public void data(ByteBuf payload) {
            payload.release();
        }

        @Override
        public void endOfStream() {
        }

        @Override
        public void writabilityChanged(boolean writable) {
        }

        @Override
        public void closed(Throwable causeOrNull) {
        }
    }

    private static ByteBuf slab() {
        ByteBuf slab = Unpooled.directBuffer(4000, 4000);
        for (int i = 0; i < 4; i++) {
            slab.setByte(i * 1000, i + 1);
        }
        return slab;
    }

    @Test
    void placesInOneSlabShareOneReferenceAndLeaveInOrderWithOwnedDatagramsEvenIfTheConnectionLetsTheSlabGo() {
        ConnectionOutput out = new ConnectionOutput();
        ByteBuf slab = slab();
        out.sendPart(slab, 0, 1000);
        out.sendPart(slab, 1000, 1000);
        out.send(Unpooled.buffer(1).writeByte(9));
        out.sendPart(slab, 2000, 1000);
        assertEquals(2, slab.refCnt(), "one reference for the queued run of places, not one per place");
        slab.release(); // the connection lets go of the slab (its packets acknowledged) before the driver collects
        Recorder sink = new Recorder();
        sink.onFirstPart = () -> out.sendPart(slab, 3000, 500); // what the sink makes the connection send joins the round
        out.drainTo(sink, true, () -> true);
        assertEquals(List.of("part:1/1000", "part:2/1000", "own:9", "part:3/1000", "part:4/500"), sink.sent);
        assertEquals(0, slab.refCnt(), "the queue let go of the slab after its last place");
        assertFalse(out.hasTransmits());
    }

    @Test
    void aPolledPlaceIsARetainedSliceAndReleaseAllGivesBackTheQueuesReferences() {
        ConnectionOutput out = new ConnectionOutput();
        ByteBuf a = slab();
        ByteBuf b = slab();
        out.sendPart(a, 0, 1000);
        out.sendPart(b, 0, 1000);
        out.sendPart(a, 1000, 1000); // after another slab: a run of its own
        assertEquals(3, a.refCnt(), "the slab's own reference and one per run of places");
        assertEquals(2, b.refCnt());
        ByteBuf polled = out.pollTransmit();
        assertEquals(1, polled.getByte(0));
        assertEquals(1000, polled.readableBytes());
        assertEquals(3, a.refCnt(), "the polled slice's reference in place of the first run's");
        out.releaseAll();
        assertEquals(2, a.refCnt(), "the slab's own and the polled slice's");
        assertEquals(1, b.refCnt());
        polled.release();
        assertEquals(1, a.refCnt());
        a.release();
        b.release();
    }

    @Test
    void aRunThatEndsWhileAnotherPlaceOfItsSlabWaitsKeepsThatRunsReferenceForWhatJoinsItLater() {
        ConnectionOutput out = new ConnectionOutput();
        ByteBuf a = slab();
        ByteBuf b = slab();
        out.sendPart(a, 0, 1000);    // a retransmission from an older slab
        out.sendPart(b, 0, 1000);    // a new packet
        out.sendPart(a, 1000, 1000); // another retransmission: a's second run
        ByteBuf first = out.pollTransmit(); // the driver takes one and stops (its socket is over its high-water mark)
        first.release();
        assertEquals(2, a.refCnt(), "the slab's own reference and its second run's");
        out.sendPart(a, 2000, 1000); // joins the run still queued, which already holds a reference
        assertEquals(2, a.refCnt());
        Recorder sink = new Recorder();
        out.drainTo(sink, true, () -> true);
        assertEquals(List.of("part:1/1000", "part:2/1000", "part:3/1000"), sink.sent);
        assertEquals(1, a.refCnt(), "every reference the queue took is given back");
        assertEquals(1, b.refCnt());
        a.release();
        b.release();
    }
}
