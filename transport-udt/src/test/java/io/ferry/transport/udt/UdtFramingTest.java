package io.ferry.transport.udt;

import io.ferry.transport.conformance.LeakDetectionExtension;
import io.ferry.transport.spi.InboundQueue;
import io.ferry.transport.spi.ReadLoop;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The framed stream's decoder: one buffer per datagram, frame headers consumed at once, the end in its place. */
@ExtendWith(LeakDetectionExtension.class)
class UdtFramingTest {

    /** Keeps what the decoder queues, as text, releasing each buffer. */
    private static class Collected extends InboundQueue {
        final List<String> items = new ArrayList<>();

        Collected(Channel channel) {
            super(channel);
        }

        @Override
        public void add(Object dataOrEnd) {
            if (dataOrEnd == ReadLoop.END) {
                items.add("END");
            } else {
                ByteBuf b = (ByteBuf) dataOrEnd;
                items.add(b.toString(StandardCharsets.US_ASCII));
                b.release();
            }
        }

        @Override
        protected void freed(int bytes) {
        }

        @Override
        public boolean accepting() {
            return true;
        }

        @Override
        public void endOfInput() {
        }

        @Override
        public boolean moreMayCome() {
            return false;
        }

        @Override
        public boolean batchContinues() {
            return false;
        }
    }

    private static ByteBuf datagram(Object... parts) {
        ByteBuf b = Unpooled.buffer();
        for (Object p : parts) {
            if (p instanceof Integer header) {
                b.writeInt(header);
            } else {
                b.writeCharSequence((String) p, StandardCharsets.US_ASCII);
            }
        }
        return b;
    }

    @Test
    void theFramesOfOneDatagramReachThePipelineAsOneBufferAndTheirHeadersAreConsumedOnce() throws IOException {
        UdtFraming framing = new UdtFraming(UdtSettings.StreamMode.FRAMED);
        Collected inbound = new Collected(new EmbeddedChannel());
        List<Integer> consumed = new ArrayList<>();
        // three small frames, the last of four bytes cut after two by the datagram's end
        framing.decode(datagram(3, "abc", 2, "de", 4, "fg"), inbound, consumed::add);
        // the rest of that frame, a frame whose header is cut after two bytes...
        ByteBuf second = datagram("hi", 1, "j");
        second.writeShort(0);
        framing.decode(second, inbound, consumed::add);
        // ...its last two header bytes, its byte, then the end of the stream
        ByteBuf third = Unpooled.buffer().writeShort(1);
        third.writeCharSequence("k", StandardCharsets.US_ASCII);
        third.writeInt(0);
        framing.decode(third, inbound, consumed::add);
        assertEquals(List.of("abcdefg", "hij", "k", "END"), inbound.items);
        assertEquals(List.of(12, 6, 6), consumed, "header bytes, once per datagram");
        assertEquals(11, framing.payloadBytes());
        assertTrue(framing.endSeen());
    }

    @Test
    void aDatagramInsideOneLargeFrameIsPassedOnAsItIs() throws IOException {
        UdtFraming framing = new UdtFraming(UdtSettings.StreamMode.FRAMED);
        List<Object> queued = new ArrayList<>();
        InboundQueue inbound = new Collected(new EmbeddedChannel()) {
            @Override
            public void add(Object dataOrEnd) {
                queued.add(dataOrEnd);
            }
        };
        framing.decode(datagram(10_000, "first part"), inbound, n -> { });
        ByteBuf middle = datagram("of the frame");
        framing.decode(middle.retain(), inbound, n -> { });
        assertEquals(2, queued.size());
        assertSame(middle, ((ByteBuf) queued.get(1)).unwrap(), "a slice of the datagram, not a copy");
        assertEquals("of the frame", ((ByteBuf) queued.get(1)).toString(StandardCharsets.US_ASCII));
        queued.forEach(o -> ((ByteBuf) o).release());
        middle.release();
    }

    @Test
    void bytesAfterTheEndAreRefusedAndNothingLeaks() throws IOException {
        UdtFraming framing = new UdtFraming(UdtSettings.StreamMode.FRAMED);
        Collected inbound = new Collected(new EmbeddedChannel());
        assertThrows(IOException.class, () -> framing.decode(datagram(2, "ab", 0, "x"), inbound, n -> { }));
        assertEquals(List.of("ab", "END"), inbound.items);
        assertThrows(IOException.class, () -> new UdtFraming(UdtSettings.StreamMode.FRAMED).decode(datagram(1, "a", -5), inbound, n -> { }),
                "a negative length is malformed");
        assertEquals(List.of("ab", "END"), inbound.items, "the frame before it is dropped with the connection");
    }
}
