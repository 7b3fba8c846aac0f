package io.ferry.transport.ledbat.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PacketCodecTest {

    private static ByteBuf header(PacketType type, int extension) {
        ByteBuf buf = Unpooled.buffer();
        PacketWriter.writeHeader(buf, type, extension, 0xBEEF, 0xFEDCBA98, 0x12345678, 0xFFFF_FFFFL, 65_535, 7);
        return buf;
    }

    @ParameterizedTest
    @EnumSource(PacketType.class)
    void headerFieldsRoundTripForEveryType(PacketType type) {
        ByteBuf buf = header(type, UtpWire.EXTENSION_NONE);
        buf.writeBytes(new byte[]{1, 2, 3});
        try {
            assertEquals(UtpWire.HEADER_SIZE + 3, buf.readableBytes());
            PacketReader r = new PacketReader();
            assertEquals(PacketValidity.VALID, r.wrap(buf));
            assertEquals(type, r.type());
            assertEquals(0xBEEF, r.connectionId());
            assertEquals(0xFEDCBA98, r.timestampMicros());
            assertEquals(0x12345678, r.timestampDifferenceMicros());
            assertEquals(0xFFFF_FFFFL, r.windowSize());
            assertEquals(65_535, r.seqNr());
            assertEquals(7, r.ackNr());
            assertEquals(3, r.payloadLength());
            assertEquals(UtpWire.HEADER_SIZE, r.payloadOffset() - buf.readerIndex());
            assertFalse(r.hasSelectiveAck());
            assertEquals(0, buf.readerIndex(), "reading must not move the reader index");
        } finally {
            buf.release();
        }
    }

    @Test
    void aReaderIsAViewOfExactlyTheBytesItLastFoundValid() {
        ByteBuf buf = header(PacketType.DATA, UtpWire.EXTENSION_NONE).writeByte(1);
        ByteBuf other = header(PacketType.DATA, UtpWire.EXTENSION_NONE);
        ByteBuf bad = Unpooled.buffer().writeByte(0x41);
        try {
            PacketReader r = new PacketReader();
            assertFalse(r.isViewOf(buf), "nothing wrapped yet");
            assertEquals(PacketValidity.VALID, r.wrap(buf));
            assertTrue(r.isViewOf(buf));
            assertFalse(r.isViewOf(other), "another buffer");
            buf.writeByte(2);
            assertFalse(r.isViewOf(buf), "bytes were added since");
            assertEquals(PacketValidity.VALID, r.wrap(buf));
            buf.skipBytes(1);
            assertFalse(r.isViewOf(buf), "the reader index moved since");
            assertEquals(PacketValidity.TOO_SHORT, r.wrap(bad));
            assertFalse(r.isViewOf(bad), "an invalid packet is no view");
        } finally {
            buf.release();
            other.release();
            bad.release();
        }
    }

    @Test
    void firstByteCarriesTypeInHighNibbleAndVersionOneInLowNibble() {
        ByteBuf buf = header(PacketType.SYN, UtpWire.EXTENSION_NONE);
        try {
            assertEquals(0x41, buf.getUnsignedByte(0));
        } finally {
            buf.release();
        }
    }

    @Test
    void readerWorksOnASliceWithNonZeroReaderIndex() {
        ByteBuf outer = Unpooled.buffer();
        outer.writeBytes(new byte[5]);
        PacketWriter.writeHeader(outer, PacketType.DATA, 0, 1, 2, 3, 4, 5, 6);
        outer.writeByte(42);
        outer.skipBytes(5);
        try {
            PacketReader r = new PacketReader();
            assertEquals(PacketValidity.VALID, r.wrap(outer));
            assertEquals(5, r.seqNr());
            assertEquals(1, r.payloadLength());
            assertEquals(42, outer.getByte(r.payloadOffset()));
        } finally {
            outer.release();
        }
    }

    @Test
    void refreshRewritesTimestampsWindowAndAckOnly() {
        ByteBuf buf = header(PacketType.DATA, 0);
        try {
            PacketWriter.refresh(buf, 11, 22, 33, 44);
            PacketReader r = new PacketReader();
            assertEquals(PacketValidity.VALID, r.wrap(buf));
            assertEquals(11, r.timestampMicros());
            assertEquals(22, r.timestampDifferenceMicros());
            assertEquals(33, r.windowSize());
            assertEquals(44, r.ackNr());
            assertEquals(65_535, r.seqNr());
            assertEquals(0xBEEF, r.connectionId());
        } finally {
            buf.release();
        }
    }

    @Test
    void selectiveAckBitsMapToAckPlusTwoPlusIndexLeastSignificantBitFirst() {
        SelectiveAckBitmap bitmap = new SelectiveAckBitmap();
        bitmap.set(0);
        bitmap.set(9);
        bitmap.set(31);
        assertEquals(4, bitmap.encodedLength());
        ByteBuf buf = header(PacketType.STATE, UtpWire.EXTENSION_SELECTIVE_ACK);
        PacketWriter.writeSelectiveAck(buf, UtpWire.EXTENSION_NONE, bitmap);
        try {
            // next extension, length, then bytes with bit 0 = LSB of the first byte
            assertEquals(0, buf.getUnsignedByte(20));
            assertEquals(4, buf.getUnsignedByte(21));
            assertEquals(0x01, buf.getUnsignedByte(22));
            assertEquals(0x02, buf.getUnsignedByte(23));
            assertEquals(0x00, buf.getUnsignedByte(24));
            assertEquals(0x80, buf.getUnsignedByte(25));
            PacketReader r = new PacketReader();
            assertEquals(PacketValidity.VALID, r.wrap(buf));
            assertTrue(r.hasSelectiveAck());
            assertEquals(32, r.selectiveAckBits());
            for (int i = 0; i < 32; i++) {
                assertEquals(i == 0 || i == 9 || i == 31, r.isSelectivelyAcked(i), "bit " + i);
            }
            // the same bits as one word: bit j of the word is bit j of the bitmask
            assertEquals((1 << 0) | (1 << 9) | (1 << 31), r.selectiveAckWord(0));
            assertEquals(0, r.payloadLength());
            assertThrows(IndexOutOfBoundsException.class, () -> r.isSelectivelyAcked(32));
            assertThrows(IndexOutOfBoundsException.class, () -> r.selectiveAckWord(1));
        } finally {
            buf.release();
        }
    }

    @Test
    void selectiveAckLengthGrowsInFourByteStepsAndClears() {
        SelectiveAckBitmap bitmap = new SelectiveAckBitmap();
        assertTrue(bitmap.isEmpty());
        assertEquals(0, bitmap.encodedLength());
        bitmap.set(32);
        assertEquals(8, bitmap.encodedLength());
        bitmap.set(SelectiveAckBitmap.MAX_BITS - 1);
        assertEquals(SelectiveAckBitmap.MAX_BYTES, bitmap.encodedLength());
        bitmap.clear();
        assertTrue(bitmap.isEmpty());
        assertFalse(bitmap.get(32));
        assertThrows(IndexOutOfBoundsException.class, () -> bitmap.set(SelectiveAckBitmap.MAX_BITS));
    }

    @Test
    void unknownExtensionIsSkippedAndFollowingSelectiveAckFound() {
        ByteBuf buf = header(PacketType.STATE, 7);
        buf.writeByte(UtpWire.EXTENSION_SELECTIVE_ACK).writeByte(3).writeBytes(new byte[]{9, 9, 9});
        buf.writeByte(UtpWire.EXTENSION_NONE).writeByte(4).writeBytes(new byte[]{0x04, 0, 0, 0});
        buf.writeBytes(new byte[]{5, 6});
        try {
            PacketReader r = new PacketReader();
            assertEquals(PacketValidity.VALID, r.wrap(buf));
            assertEquals(7, r.firstExtension());
            assertTrue(r.hasSelectiveAck());
            assertTrue(r.isSelectivelyAcked(2));
            assertFalse(r.isSelectivelyAcked(0));
            assertEquals(2, r.payloadLength());
            assertEquals(5, buf.getByte(r.payloadOffset()));
        } finally {
            buf.release();
        }
    }

    @Test
    void truncatedHeaderIsTooShort() {
        ByteBuf buf = header(PacketType.DATA, 0);
        try {
            assertEquals(PacketValidity.TOO_SHORT, PacketReader.validate(buf.slice(0, 19)));
            assertEquals(PacketValidity.TOO_SHORT, PacketReader.validate(Unpooled.EMPTY_BUFFER));
        } finally {
            buf.release();
        }
    }

    @Test
    void wrongVersionIsDetected() {
        ByteBuf buf = header(PacketType.DATA, 0);
        try {
            buf.setByte(0, (PacketType.DATA.code() << 4) | 2);
            assertEquals(PacketValidity.BAD_VERSION, PacketReader.validate(buf));
            buf.setByte(0, 0x00);
            assertEquals(PacketValidity.BAD_VERSION, PacketReader.validate(buf));
        } finally {
            buf.release();
        }
    }

    @Test
    void unknownTypeIsDetected() {
        ByteBuf buf = header(PacketType.DATA, 0);
        try {
            for (int code = 5; code < 16; code++) {
                buf.setByte(0, (code << 4) | 1);
                assertEquals(PacketValidity.UNKNOWN_TYPE, PacketReader.validate(buf), "type " + code);
            }
        } finally {
            buf.release();
        }
    }

    @Test
    void extensionHeaderOrBodyRunningPastTheEndIsTruncated() {
        ByteBuf noHeader = header(PacketType.STATE, UtpWire.EXTENSION_SELECTIVE_ACK);
        noHeader.writeByte(0);
        ByteBuf shortBody = header(PacketType.STATE, UtpWire.EXTENSION_SELECTIVE_ACK);
        shortBody.writeByte(0).writeByte(8).writeInt(0);
        ByteBuf chainPastEnd = header(PacketType.STATE, 9);
        chainPastEnd.writeByte(9).writeByte(0);
        try {
            PacketReader r = new PacketReader();
            assertEquals(PacketValidity.TRUNCATED_EXTENSION, r.wrap(noHeader));
            assertEquals(PacketValidity.TRUNCATED_EXTENSION, r.wrap(shortBody));
            assertEquals(PacketValidity.TRUNCATED_EXTENSION, r.wrap(chainPastEnd));
        } finally {
            noHeader.release();
            shortBody.release();
            chainPastEnd.release();
        }
    }

    @Test
    void selectiveAckWhoseLengthIsZeroOrNotAMultipleOfFourIsBad() {
        ByteBuf zero = header(PacketType.STATE, UtpWire.EXTENSION_SELECTIVE_ACK);
        zero.writeByte(0).writeByte(0);
        ByteBuf three = header(PacketType.STATE, UtpWire.EXTENSION_SELECTIVE_ACK);
        three.writeByte(0).writeByte(3).writeBytes(new byte[3]);
        try {
            assertEquals(PacketValidity.BAD_SACK_LENGTH, PacketReader.validate(zero));
            assertEquals(PacketValidity.BAD_SACK_LENGTH, PacketReader.validate(three));
        } finally {
            zero.release();
            three.release();
        }
    }

    @Test
    void sequenceArithmeticWrapsAt65536() {
        assertEquals(1, UtpWire.seqDiff(0, 65_535));
        assertEquals(-1, UtpWire.seqDiff(65_535, 0));
        assertEquals(0, UtpWire.seqAdd(65_535, 1));
        assertEquals(65_535, UtpWire.seqAdd(0, -1));
        assertTrue(UtpWire.seqDiff(100, 65_500) > 0);
    }

    @Test
    void microsecondTimestampWrapsAndIsNeverZero() {
        assertEquals(1, UtpWire.micros32(0));
        assertEquals(1, UtpWire.micros32((1L << 32) * 1000));
        assertEquals(-1, UtpWire.micros32(((1L << 32) - 1) * 1000));
    }

    @Test
    void typeCodesMatchBep29() {
        assertEquals(0, PacketType.DATA.code());
        assertEquals(1, PacketType.FIN.code());
        assertEquals(2, PacketType.STATE.code());
        assertEquals(3, PacketType.RESET.code());
        assertEquals(4, PacketType.SYN.code());
        assertEquals(null, PacketType.fromCode(5));
        assertEquals(null, PacketType.fromCode(-1));
    }
}
