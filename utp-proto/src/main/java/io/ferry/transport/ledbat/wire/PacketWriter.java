package io.ferry.transport.ledbat.wire;

import io.netty.buffer.ByteBuf;

/**
 * Writes uTP headers and extensions into a {@link ByteBuf}, and patches the header fields that change
 * when a stored packet is sent again.
 *
 * <p>Stateless; every method works on the buffer it is given and allocates nothing.
 */
public final class PacketWriter {
    private PacketWriter() {
    }

    /**
     * Appends a 20-byte header at the writer index.
     *
     * @param out                 the destination
     * @param type                the packet type
     * @param firstExtension      the code of the first extension, or {@link UtpWire#EXTENSION_NONE}
     * @param connectionId        {@code connection_id} (low 16 bits used)
     * @param timestampMicros     {@code timestamp_microseconds} (32 bits)
     * @param timestampDifference {@code timestamp_difference_microseconds} (32 bits)
     * @param windowSize          {@code wnd_size} in bytes (clamped to the unsigned 32-bit range)
     * @param seqNr               {@code seq_nr} (low 16 bits used)
     * @param ackNr               {@code ack_nr} (low 16 bits used)
     */
    public static void writeHeader(ByteBuf out, PacketType type, int firstExtension, int connectionId,
                                   int timestampMicros, int timestampDifference, long windowSize,
                                   int seqNr, int ackNr) {
        out.ensureWritable(UtpWire.HEADER_SIZE);
        int at = out.writerIndex();
        writeHeaderAt(out, at, type, firstExtension, connectionId, timestampMicros, timestampDifference, windowSize,
                seqNr, ackNr);
        out.writerIndex(at + UtpWire.HEADER_SIZE);
    }

    /**
     * Writes a 20-byte header at index {@code at} of {@code out}, leaving its indices alone (a packet placed
     * in a connection's slab); the parameters as {@link #writeHeader}.
     */
    public static void writeHeaderAt(ByteBuf out, int at, PacketType type, int firstExtension, int connectionId,
                                     int timestampMicros, int timestampDifference, long windowSize,
                                     int seqNr, int ackNr) {
        // three writes instead of eight: each ByteBuf write checks bounds and the reference count
        out.setLong(at, (long) ((type.code() << 4) | UtpWire.VERSION) << 56
                | (long) (firstExtension & 0xFF) << 48
                | (long) (connectionId & 0xFFFF) << 32
                | (timestampMicros & 0xFFFF_FFFFL));
        out.setLong(at + UtpWire.OFFSET_TIMESTAMP_DIFFERENCE, (long) timestampDifference << 32 | clampWindow(windowSize));
        out.setInt(at + UtpWire.OFFSET_SEQ_NR, (seqNr & 0xFFFF) << 16 | (ackNr & 0xFFFF));
    }

    /**
     * Appends a selective-ACK extension: the next-extension byte, the length byte and the bitmask.
     *
     * @param out           the destination
     * @param nextExtension the code of the extension that follows, or {@link UtpWire#EXTENSION_NONE}
     * @param bitmap        the bitmask; must be non-empty
     */
    public static void writeSelectiveAck(ByteBuf out, int nextExtension, SelectiveAckBitmap bitmap) {
        int length = bitmap.encodedLength();
        if (length == 0) {
            throw new IllegalArgumentException("empty selective ACK bitmap");
        }
        out.writeByte(nextExtension);
        out.writeByte(length);
        bitmap.writeTo(out);
    }

    /**
     * Overwrites the fields that are refreshed each time a stored packet is (re)transmitted. The
     * header must start at the buffer's reader index.
     */
    public static void refresh(ByteBuf packet, int timestampMicros, int timestampDifference, long windowSize,
                               int ackNr) {
        refreshAt(packet, packet.readerIndex(), timestampMicros, timestampDifference, windowSize, ackNr);
    }

    /** As {@link #refresh}, for the header at index {@code base} of {@code packet}. */
    public static void refreshAt(ByteBuf packet, int base, int timestampMicros, int timestampDifference, long windowSize,
                                 int ackNr) {
        packet.setLong(base + UtpWire.OFFSET_TIMESTAMP, (long) timestampMicros << 32 | (timestampDifference & 0xFFFF_FFFFL));
        packet.setInt(base + UtpWire.OFFSET_WINDOW, (int) clampWindow(windowSize));
        packet.setShort(base + UtpWire.OFFSET_ACK_NR, ackNr);
    }

    private static long clampWindow(long windowSize) {
        return Math.max(0L, Math.min(windowSize, 0xFFFF_FFFFL));
    }
}
