package io.ferry.transport.ledbat.wire;

import io.netty.buffer.ByteBuf;

/**
 * A reusable, allocation-free view of one received uTP packet.
 *
 * <p>{@link #wrap(ByteBuf)} checks the datagram and, when it is {@link PacketValidity#VALID}, decodes the
 * fixed header and remembers where the payload and the selective-ACK bitmask are; the bitmask is read
 * from the buffer with absolute indexes. The buffer's reader and writer indexes are never changed, and
 * the reader never retains or releases it. The view is valid until the next {@code wrap} or until the
 * buffer is released.
 *
 * <p>Not thread-safe; keep one instance per thread or per connection.
 */
public final class PacketReader {
    private ByteBuf buf;
    private int start;
    private int end;
    private int payloadOffset;
    private int sackOffset;
    private int sackLength;
    // the fixed header, decoded once by wrap from three reads (each ByteBuf read checks bounds and the
    // reference count: a dozen reads a packet were a measurable share of the core's time, issue 58)
    private PacketType type;
    private int firstExtension;
    private int connectionId;
    private int timestampMicros;
    private int timestampDifferenceMicros;
    private long windowSize;
    private int seqNr;
    private int ackNr;

    /**
     * Checks the readable bytes of {@code packet} and, if they form a valid packet, points this view
     * at them.
     *
     * @param packet the datagram; its readable bytes are the packet
     * @return the validity; accessors may only be used after {@link PacketValidity#VALID}
     */
    public PacketValidity wrap(ByteBuf packet) {
        this.buf = packet;
        this.start = packet.readerIndex();
        this.end = packet.writerIndex();
        this.sackOffset = -1;
        this.sackLength = 0;
        int base = start;
        if (end - base < UtpWire.HEADER_SIZE) {
            this.buf = null;
            return PacketValidity.TOO_SHORT;
        }
        // the first eight bytes once, for the checks and the fields: each ByteBuf read checks bounds and the count
        long typeToTimestamp = packet.getLong(base + UtpWire.OFFSET_TYPE_VERSION);
        PacketValidity validity = walk(packet, this, (int) (typeToTimestamp >>> 56) & 0xFF, (int) (typeToTimestamp >>> 48) & 0xFF);
        if (validity != PacketValidity.VALID) {
            this.buf = null;
            return validity;
        }
        long differenceAndWindow = packet.getLong(base + UtpWire.OFFSET_TIMESTAMP_DIFFERENCE);
        int seqAndAck = packet.getInt(base + UtpWire.OFFSET_SEQ_NR);
        type = PacketType.fromCode((int) (typeToTimestamp >>> 60));
        firstExtension = (int) (typeToTimestamp >>> 48) & 0xFF;
        connectionId = (int) (typeToTimestamp >>> 32) & 0xFFFF;
        timestampMicros = (int) typeToTimestamp;
        timestampDifferenceMicros = (int) (differenceAndWindow >>> 32);
        windowSize = differenceAndWindow & 0xFFFF_FFFFL;
        seqNr = seqAndAck >>> 16;
        ackNr = seqAndAck & 0xFFFF;
        return validity;
    }

    /**
     * Classifies the readable bytes of {@code packet} without keeping any state.
     *
     * @param packet the datagram
     * @return {@link PacketValidity#VALID} or the first defect found
     */
    public static PacketValidity validate(ByteBuf packet) {
        int start = packet.readerIndex();
        if (packet.writerIndex() - start < UtpWire.HEADER_SIZE) {
            return PacketValidity.TOO_SHORT;
        }
        return walk(packet, null, packet.getUnsignedByte(start + UtpWire.OFFSET_TYPE_VERSION),
                packet.getUnsignedByte(start + UtpWire.OFFSET_EXTENSION));
    }

    /** Checks a packet at least a header long whose first two bytes are {@code typeVersion} and {@code extension}. */
    private static PacketValidity walk(ByteBuf packet, PacketReader sink, int typeVersion, int extension) {
        int start = packet.readerIndex();
        int limit = packet.writerIndex();
        if ((typeVersion & 0x0F) != UtpWire.VERSION) {
            return PacketValidity.BAD_VERSION;
        }
        if (PacketType.fromCode(typeVersion >>> 4) == null) {
            return PacketValidity.UNKNOWN_TYPE;
        }
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

    /**
     * Whether this view holds {@code packet}'s header as it is now: the last {@link #wrap} was of these very
     * readable bytes and found them valid. Lets a datagram parsed once for routing be handled without a second parse.
     */
    public boolean isViewOf(ByteBuf packet) {
        return buf == packet && start == packet.readerIndex() && end == packet.writerIndex();
    }

    /** Returns the packet type. */
    public PacketType type() {
        return type;
    }

    /** Returns the code of the first extension in the chain (0 when there is none). */
    public int firstExtension() {
        return firstExtension;
    }

    /** Returns {@code connection_id} (unsigned 16 bits). */
    public int connectionId() {
        return connectionId;
    }

    /** Returns the bits of {@code timestamp_microseconds} (an unsigned 32-bit value). */
    public int timestampMicros() {
        return timestampMicros;
    }

    /** Returns the bits of {@code timestamp_difference_microseconds} (an unsigned 32-bit value). */
    public int timestampDifferenceMicros() {
        return timestampDifferenceMicros;
    }

    /** Returns {@code wnd_size}, the sender's advertised receive window in bytes. */
    public long windowSize() {
        return windowSize;
    }

    /** Returns {@code seq_nr} (unsigned 16 bits). */
    public int seqNr() {
        return seqNr;
    }

    /** Returns {@code ack_nr} (unsigned 16 bits). */
    public int ackNr() {
        return ackNr;
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

    /**
     * Thirty-two bits of the selective-ACK bitmask at once: bit {@code j} of word {@code w} is bit
     * {@code 32 * w + j} of {@link #isSelectivelyAcked}, i.e. packet {@code ack_nr + 2 + 32 * w + j}
     * (BEP 29 numbers the bits from the least significant of each byte, so the four bytes read as a
     * little-endian word). The bitmask's length is a multiple of four bytes ({@link PacketValidity#BAD_SACK_LENGTH}).
     *
     * @param w the word index, {@code 0 <= w < selectiveAckBits() / 32}
     */
    public int selectiveAckWord(int w) {
        if (w < 0 || w >= sackLength / 4) {
            throw new IndexOutOfBoundsException("word " + w + " of " + sackLength / 4);
        }
        return buf.getIntLE(sackOffset + 4 * w);
    }
}
