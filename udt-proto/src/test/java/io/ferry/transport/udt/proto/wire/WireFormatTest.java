package io.ferry.transport.udt.proto.wire;

import io.ferry.transport.conformance.LeakDetectionExtension;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** UDT4's wire format byte for byte, as draft-gg-udt-03 and UDT4 4.11's {@code packet.cpp} lay it out. */
@ExtendWith(LeakDetectionExtension.class)
class WireFormatTest {

    @Test
    void aHandshakeIsTwelveBigEndianWordsWithTheAddressWordsByteReversed() throws Exception {
        Handshake hs = new Handshake(4, Handshake.STREAM, 0x0102_0304, 1500, 8192, Handshake.REQUEST, 0x0A0B_0C0D, 0,
                InetAddress.getByName("127.0.0.1"));
        ByteBuf b = Unpooled.buffer();
        try {
            hs.writeTo(b);
            assertEquals(Handshake.BYTES, b.readableBytes());
            assertEquals("00000004" + "00000001" + "01020304" + "000005dc" + "00002000" + "00000001" + "0a0b0c0d" + "00000000"
                    + "0100007f" + "00000000" + "00000000" + "00000000", ByteBufUtil.hexDump(b),
                    "UDT4 stores s_addr in host order, then htonl: 127.0.0.1 reads 01 00 00 7f");
            assertEquals(hs, Handshake.read(b, 0, false));
        } finally {
            b.release();
        }
    }

    @Test
    void anIpv6HandshakeRoundTrips() throws Exception {
        Handshake hs = new Handshake(4, Handshake.DGRAM, 7, 1400, 25600, Handshake.RESPONSE, 99, -5,
                InetAddress.getByName("2001:db8::1234:5678"));
        ByteBuf b = Unpooled.buffer();
        try {
            hs.writeTo(b);
            assertEquals(hs, Handshake.read(b, 0, true));
            assertEquals("b80d0120", ByteBufUtil.hexDump(b, 32, 4), "each word of the address reversed");
        } finally {
            b.release();
        }
    }

    @Test
    void aShortHandshakeIsRefusedWithItsLength() {
        ByteBuf b = Unpooled.buffer().writeZero(40);
        try {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Handshake.read(b, 0, false));
            assertTrue(e.getMessage().contains("40"), e.getMessage());
        } finally {
            b.release();
        }
    }

    @Test
    void controlAndDataHeadersCarryTheirFields() {
        ByteBuf ack = UdtPacket.control(UnpooledByteBufAllocator.DEFAULT, UdtPacket.ACK, 77, 123_456, 0x3333, 24);
        ByteBuf data = Unpooled.buffer();
        try {
            assertEquals("80020000" + "0000004d" + "0001e240" + "00003333", ByteBufUtil.hexDump(ack));
            assertTrue(UdtPacket.isControl(ack));
            assertEquals(UdtPacket.ACK, UdtPacket.controlType(ack));
            assertEquals(77, UdtPacket.secondWord(ack));
            UdtPacket.writeDataHeader(data, (1L << 31) + 5, UdtPacket.BOUNDARY_SOLO | UdtPacket.IN_ORDER | 9, 1, 0x4444);
            assertFalse(UdtPacket.isControl(data));
            assertEquals(5, UdtPacket.sequence(data), "31-bit sequence numbers wrap");
            assertEquals("00000005" + "e0000009" + "00000001" + "00004444", ByteBufUtil.hexDump(data));
        } finally {
            ack.release();
            data.release();
        }
    }

    @Test
    void lossListsCompressRangesAndReadBack() {
        ByteBuf b = Unpooled.buffer();
        try {
            LossList.writeRange(b, 10, 10);
            LossList.writeRange(b, 20, 25);
            LossList.writeRange(b, SeqNumbers.MAX, SeqNumbers.MAX);
            assertEquals("0000000a" + "80000014" + "00000019" + "7fffffff", ByteBufUtil.hexDump(b));
            List<String> ranges = new ArrayList<>();
            assertTrue(LossList.read(b, 0, 4, (f, l) -> ranges.add(f + "-" + l)));
            assertEquals(List.of("10-10", "20-25", SeqNumbers.MAX + "-" + SeqNumbers.MAX), ranges);
            assertFalse(LossList.read(b, 4, 1, (f, l) -> { }), "a range start without its end is malformed");
        } finally {
            b.release();
        }
    }

    @Test
    void wireSequenceNumbersWidenToTheNearestCount() {
        long span = 1L << 31;
        assertEquals(5, SeqNumbers.widen(5, 0));
        assertEquals(span + 5, SeqNumbers.widen(5, span - 10), "just past the wrap");
        assertEquals(span - 10, SeqNumbers.widen(SeqNumbers.MAX - 9, span + 5), "just before it");
        assertEquals(3 * span + 100, SeqNumbers.widen(100, 3 * span + 50));
        assertEquals(-3, SeqNumbers.widen(SeqNumbers.MAX - 2, 0), "below the first count");
    }
}
