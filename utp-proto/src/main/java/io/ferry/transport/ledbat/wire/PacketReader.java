package io.ferry.transport.ledbat.wire;

import io.netty.buffer.ByteBuf;

/**
 * A reusable, allocation-free view of one received uTP packet.
 *
 * <p>{@link #wrap(ByteBuf)} checks the datagram and, when it is {@link PacketValidity#VALID}, remembers
 * where the payload and the selective-ACK bitmask are. All accessors read the buffer with absolute
 * indexes: the buffer's reader and writer indexes are never changed, and the reader never retains or
 * releases it. The view is valid until the next {@code wrap} or until the buffer is released.
 *
 * <p>Not thread-safe; keep one instance per thread or per connection.
 */
public final class PacketReader {
    private ByteBuf buf;
    private int base;
    private int end;
    private int payloadOffset;
    private int sackOffset;
    private int sackLength;

    /**
     * Checks the readable bytes of {@code packet} and, if they form a valid packet, points this view
     * at them.
     *
     * @param packet the datagram; its readable bytes are the packet
     * @return the validity; accessors may only be used after {@link PacketValidity#VALID}
     */
    public PacketValidity wrap(ByteBuf packet) {
        this.buf = packet;
        this.base = packet.readerIndex();
        this.end = packet.writerIndex();
        this.sackOffset = -1;
        this.sackLength = 0;
        PacketValidity validity = walk(packet, this);
        if (validity != PacketValidity.VALID) {
            this.buf = null;
        }
        return validity;
    }

    /**
     * Classifies the readable bytes of {@code packet} without keeping any state.
     *
     * @param packet the datagram
     * @return {@link PacketValidity#VALID} or the first defect found
     */
    public static PacketValidity validate(ByteBuf packet) {
        return walk(packet, null);
    }

    private static PacketValidity walk(ByteBuf packet, PacketReader sink) {
        int start = packet.readerIndex();
        int limit = packet.writerIndex();
        if (limit - start < UtpWire.HEADER_SIZE) {
            return PacketValidity.TOO_SHORT;
        }
        int typeVersion = packet.getUnsignedByte(start + UtpWire.OFFSET_TYPE_VERSION);
        if ((typeVersion & 0x0F) != UtpWire.VERSION) {
            return PacketValidity.BAD_VERSION;
        }
        if (PacketType.fromCode(typeVersion >>> 4) == null) {
            return PacketValidity.UNKNOWN_TYPE;
        }
        int extension = packet.getUnsignedByte(start + UtpWire.OFFSET_EXTENSION);
        int pos = start + UtpWire.HEADER_SIZE;
        while (extension != UtpWire.EXTENSION_NONE) {
            if (limit - pos < UtpWire.EXTENSION_HEADER_SIZE) {
                return PacketValidity.TRUNCATED_EXTENSION;
            }
            int next = packet.getUnsignedByte(pos);
            int length = packet.getUnsignedByte(pos + 1);
            pos += UtpWire.EXTENSION_HEADER_SIZE;
            if (limit - pos < length) {
                return PacketValidity.TRUNCATED_EXTENSION;
            }
            if (extension == UtpWire.EXTENSION_SELECTIVE_ACK) {
                if (length == 0 || (length & 3) != 0) {
                    return PacketValidity.BAD_SACK_LENGTH;
                }
                if (sink != null && sink.sackOffset < 0) {
                    sink.sackOffset = pos;
                    sink.sackLength = length;
                }
            }
            pos += length;
            extension = next;
        }
        if (sink != null) {
            sink.payloadOffset = pos;
        }
        return PacketValidity.VALID;
    }

    /** Returns the packet type. */
    public PacketType type() {
        return PacketType.fromCode(buf.getUnsignedByte(base + UtpWire.OFFSET_TYPE_VERSION) >>> 4);
    }

    /** Returns the code of the first extension in the chain (0 when there is none). */
    public int firstExtension() {
        return buf.getUnsignedByte(base + UtpWire.OFFSET_EXTENSION);
    }

    /** Returns {@code connection_id} (unsigned 16 bits). */
    public int connectionId() {
        return buf.getUnsignedShort(base + UtpWire.OFFSET_CONNECTION_ID);
    }

    /** Returns the bits of {@code timestamp_microseconds} (an unsigned 32-bit value). */
    public int timestampMicros() {
        return buf.getInt(base + UtpWire.OFFSET_TIMESTAMP);
    }

    /** Returns the bits of {@code timestamp_difference_microseconds} (an unsigned 32-bit value). */
    public int timestampDifferenceMicros() {
        return buf.getInt(base + UtpWire.OFFSET_TIMESTAMP_DIFFERENCE);
    }

    /** Returns {@code wnd_size}, the sender's advertised receive window in bytes. */
    public long windowSize() {
        return buf.getUnsignedInt(base + UtpWire.OFFSET_WINDOW);
    }

    /** Returns {@code seq_nr} (unsigned 16 bits). */
    public int seqNr() {
        return buf.getUnsignedShort(base + UtpWire.OFFSET_SEQ_NR);
    }

    /** Returns {@code ack_nr} (unsigned 16 bits). */
    public int ackNr() {
        return buf.getUnsignedShort(base + UtpWire.OFFSET_ACK_NR);
    }

    /** Returns the absolute index of the first payload byte in the wrapped buffer. */
    public int payloadOffset() {
        return payloadOffset;
    }

    /** Returns the number of payload bytes after the header and extensions. */
    public int payloadLength() {
        return end - payloadOffset;
    }

    /** Returns whether the packet carries a selective-ACK extension. */
    public boolean hasSelectiveAck() {
        return sackOffset >= 0;
    }

    /** Returns the number of bits in the selective-ACK bitmask (0 if there is none). */
    public int selectiveAckBits() {
        return sackLength * 8;
    }

    /**
     * Returns whether bit {@code i} of the selective-ACK bitmask is set, meaning packet
     * {@code ack_nr + 2 + i} was received. Bytes are in order; bit 0 is the least significant bit of
     * the first byte.
     *
     * @param i the bit index, {@code 0 <= i < selectiveAckBits()}
     */
    public boolean isSelectivelyAcked(int i) {
        if (i < 0 || i >= sackLength * 8) {
            throw new IndexOutOfBoundsException("bit " + i + " of " + sackLength * 8);
        }
        return (buf.getByte(sackOffset + (i >>> 3)) & (1 << (i & 7))) != 0;
    }
}
