package io.ferry.transport.ledbat.wire;

/**
 * The five uTP packet types of BEP 29, with their 4-bit wire codes.
 */
public enum PacketType {
    /** Regular data packet; always carries payload (or is an empty window probe). */
    DATA(0),
    /** Finalizes the connection; its sequence number is the last one the sender uses. */
    FIN(1),
    /** Acknowledgement only; carries no payload and does not consume a sequence number. */
    STATE(2),
    /** Terminates the connection forcefully. */
    RESET(3),
    /** Opens a connection; the first packet the initiator sends. */
    SYN(4);

    private static final PacketType[] BY_CODE = values();

    private final int code;

    PacketType(int code) {
        this.code = code;
    }

    /** Returns the 4-bit code of this type on the wire. */
    public int code() {
        return code;
    }

    /**
     * Returns the type with the given wire code, or {@code null} if the code names no type.
     *
     * @param code the 4-bit type code from a packet header
     * @return the type, or {@code null} for codes 5..15
     */
    public static PacketType fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
