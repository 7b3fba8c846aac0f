package io.ferry.transport.udt.proto.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The UDT4 packet header (draft-gg-udt-03 section 2; UDT4 4.11 {@code packet.cpp}): 16 bytes, four
 * big-endian words. The top bit of the first word tells data (0) from control (1).
 *
 * <pre>
 * data:    |0| sequence number (31)  |  |FF|O| message number (29)  |  timestamp  |  destination socket id
 * control: |1| type (15) | reserved (16) |  additional info (32)  |  timestamp  |  destination socket id
 * </pre>
 *
 * FF is the message boundary (10 first, 01 last, 11 solo, 00 middle) and O asks for in-order
 * delivery. The timestamp counts microseconds since the sender's connection began. Readers take a
 * buffer whose reader index is at the header and never move it.
 */
public final class UdtPacket {
    /** Bytes of the header. */
    public static final int HEADER_BYTES = 16;
    /** Bytes of IPv4 and UDP headers that UDT4 subtracts from the MSS (it uses 28 for IPv6 too). */
    public static final int IP_UDP_HEADER_BYTES = 28;

    /** Control type: connection handshake. */
    public static final int HANDSHAKE = 0;
    /** Control type: keep-alive. */
    public static final int KEEP_ALIVE = 1;
    /** Control type: acknowledgement (full, or light with only the sequence number). */
    public static final int ACK = 2;
    /** Control type: negative acknowledgement carrying a compressed loss list. */
    public static final int NAK = 3;
    /** Control type: congestion warning (delay increase, no longer sent by UDT4). */
    public static final int CONGESTION_WARNING = 4;
    /** Control type: shutdown. */
    public static final int SHUTDOWN = 5;
    /** Control type: acknowledgement of an acknowledgement. */
    public static final int ACK2 = 6;
    /** Control type: message drop request. */
    public static final int DROP_REQUEST = 7;
    /** Control type: error signal from the peer. */
    public static final int ERROR_SIGNAL = 8;

    /** Message boundary bits: the first packet of a message. */
    public static final int BOUNDARY_FIRST = 0x8000_0000;
    /** Message boundary bits: the last packet of a message. */
    public static final int BOUNDARY_LAST = 0x4000_0000;
    /** Message boundary bits: a message in one packet. */
    public static final int BOUNDARY_SOLO = BOUNDARY_FIRST | BOUNDARY_LAST;
    /** The in-order delivery flag of the message word. */
    public static final int IN_ORDER = 0x2000_0000;
    /** The mask of the 29-bit message number. */
    public static final int MESSAGE_NUMBER_MASK = 0x1FFF_FFFF;

    private UdtPacket() {
    }

    /** Returns whether the packet is a control packet. */
    public static boolean isControl(ByteBuf packet) {
        return packet.getInt(packet.readerIndex()) < 0;
    }

    /** Returns a control packet's type. */
    public static int controlType(ByteBuf packet) {
        return (packet.getInt(packet.readerIndex()) >>> 16) & 0x7FFF;
    }

    /** Returns a data packet's 31-bit sequence number. */
    public static int sequence(ByteBuf packet) {
        return packet.getInt(packet.readerIndex()) & SeqNumbers.MAX;
    }

    /** Returns the second word: a data packet's message word, a control packet's additional info. */
    public static int secondWord(ByteBuf packet) {
        return packet.getInt(packet.readerIndex() + 4);
    }

    /** Returns the timestamp word. */
    public static int timestamp(ByteBuf packet) {
        return packet.getInt(packet.readerIndex() + 8);
    }

    /** Returns the destination socket id. */
    public static int destination(ByteBuf packet) {
        return packet.getInt(packet.readerIndex() + 12);
    }

    /** Returns the bytes after the header. */
    public static int bodyLength(ByteBuf packet) {
        return packet.readableBytes() - HEADER_BYTES;
    }

    /** Returns the {@code index}-th 32-bit word of the body. */
    public static int bodyWord(ByteBuf packet, int index) {
        return packet.getInt(packet.readerIndex() + HEADER_BYTES + 4 * index);
    }

    /**
     * Allocates a control packet with its header written and room for {@code bodyBytes}.
     *
     * @param type        the control type
     * @param info        the additional-info word
     * @param timestamp   microseconds since the connection began
     * @param destination the peer's socket id (0 for a handshake request to a listener)
     */
    public static ByteBuf control(ByteBufAllocator alloc, int type, int info, int timestamp, int destination, int bodyBytes) {
        ByteBuf b = alloc.buffer(HEADER_BYTES + bodyBytes);
        b.writeInt(0x8000_0000 | (type << 16));
        b.writeInt(info);
        b.writeInt(timestamp);
        b.writeInt(destination);
        return b;
    }

    /** Writes a data packet's header. */
    public static void writeDataHeader(ByteBuf out, long seq, int messageWord, int timestamp, int destination) {
        out.writeInt(SeqNumbers.wire(seq));
        out.writeInt(messageWord);
        out.writeInt(timestamp);
        out.writeInt(destination);
    }

    /** Returns a control type's name, for messages. */
    public static String typeName(int type) {
        return switch (type) {
            case HANDSHAKE -> "handshake";
            case KEEP_ALIVE -> "keep-alive";
            case ACK -> "ACK";
            case NAK -> "NAK";
            case CONGESTION_WARNING -> "congestion warning";
            case SHUTDOWN -> "shutdown";
            case ACK2 -> "ACK2";
            case DROP_REQUEST -> "message drop request";
            case ERROR_SIGNAL -> "error signal";
            default -> "control type " + type;
        };
    }
}
