package io.ferry.transport.ledbat.wire;

/**
 * Constants of the BEP 29 version-1 wire format: header layout, extension codes and sequence-number
 * arithmetic.
 *
 * <p>Header layout (big-endian, 20 bytes):
 * <pre>
 *  0       4       8               16              24              32
 *  +-------+-------+---------------+---------------+---------------+
 *  | type  | ver   | extension     | connection_id                 |
 *  +-------+-------+---------------+---------------+---------------+
 *  | timestamp_microseconds                                        |
 *  | timestamp_difference_microseconds                             |
 *  | wnd_size                                                      |
 *  | seq_nr                        | ack_nr                        |
 *  +---------------+---------------+---------------+---------------+
 * </pre>
 */
public final class UtpWire {
    /** The only protocol version this implementation speaks. */
    public static final int VERSION = 1;
    /** Size of the fixed header in bytes. */
    public static final int HEADER_SIZE = 20;

    /** Extension code that terminates the extension chain. */
    public static final int EXTENSION_NONE = 0;
    /** Extension code of the selective acknowledgement. */
    public static final int EXTENSION_SELECTIVE_ACK = 1;
    /** Size of one extension's own header (next-extension byte, length byte). */
    public static final int EXTENSION_HEADER_SIZE = 2;

    /** Mask of the 16-bit sequence and acknowledgement numbers. */
    public static final int SEQ_MASK = 0xFFFF;

    static final int OFFSET_TYPE_VERSION = 0;
    static final int OFFSET_EXTENSION = 1;
    static final int OFFSET_CONNECTION_ID = 2;
    static final int OFFSET_TIMESTAMP = 4;
    static final int OFFSET_TIMESTAMP_DIFFERENCE = 8;
    static final int OFFSET_WINDOW = 12;
    static final int OFFSET_SEQ_NR = 16;
    static final int OFFSET_ACK_NR = 18;

    private UtpWire() {
    }

    /**
     * Returns {@code (a - b) mod 2^16} as a signed value in [-32768, 32767]: positive when {@code a} is
     * after {@code b} in the wrapping 16-bit sequence space.
     */
    public static int seqDiff(int a, int b) {
        return (short) (a - b);
    }

    /** Returns {@code (seq + delta) mod 2^16}. */
    public static int seqAdd(int seq, int delta) {
        return (seq + delta) & SEQ_MASK;
    }

    /**
     * Converts a monotonic nanosecond time to the wrapping 32-bit microsecond clock carried in
     * {@code timestamp_microseconds}. Returned as an {@code int} holding the unsigned value's bits.
     * Zero means "no timestamp" on the wire, so the result is never zero.
     */
    public static int micros32(long nowNanos) {
        int micros = (int) (nowNanos / 1000L);
        return micros == 0 ? 1 : micros;
    }
}
