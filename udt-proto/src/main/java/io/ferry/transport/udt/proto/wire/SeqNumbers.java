package io.ferry.transport.udt.proto.wire;

/**
 * UDT4's 31-bit packet sequence numbers (draft-gg-udt-03 section 2.1), kept inside the core as 64-bit
 * counts that never wrap: a wire value is widened to the count nearest a reference the caller already
 * holds (the last acknowledged or the highest received), so comparisons and distances are plain
 * arithmetic. Two counts may be compared only while they are less than 2^30 apart, which the flow
 * window (at most 2^30 packets) guarantees.
 */
public final class SeqNumbers {
    /** The largest wire sequence number. */
    public static final int MAX = 0x7FFF_FFFF;
    private static final long SPAN = 1L << 31;
    private static final long HALF = 1L << 30;

    private SeqNumbers() {
    }

    /** Returns the 31-bit wire form of a count. */
    public static int wire(long seq) {
        return (int) (seq & MAX);
    }

    /**
     * Widens a wire sequence number to the count nearest {@code near}.
     *
     * @param wire a 31-bit wire value (the top bit is ignored)
     * @param near a count the value is known to be close to
     */
    public static long widen(int wire, long near) {
        long candidate = (near & ~(long) MAX) | (wire & MAX);
        if (candidate - near > HALF) {
            candidate -= SPAN;
        } else if (near - candidate > HALF) {
            candidate += SPAN;
        }
        return candidate;
    }
}
