package io.ferry.transport.udt.proto.wire;

import io.netty.buffer.ByteBuf;

/**
 * The compressed loss list of a UDT4 NAK (draft-gg-udt-03 section 2.3, appendix A): a word with its
 * top bit set starts a range of lost sequence numbers that the next word ends; a word without it is
 * one lost sequence number.
 */
public final class LossList {
    private static final int RANGE = 0x8000_0000;

    private LossList() {
    }

    /** Writes the range {@code [first, last]} (wire numbers); a single number when they are equal. */
    public static void writeRange(ByteBuf out, int first, int last) {
        if (first == last) {
            out.writeInt(first & SeqNumbers.MAX);
        } else {
            out.writeInt(RANGE | first);
            out.writeInt(last & SeqNumbers.MAX);
        }
    }

    /** Returns the bytes {@link #writeRange} takes. */
    public static int rangeBytes(long first, long last) {
        return first == last ? 4 : 8;
    }

    /** Receives the ranges of a loss list, in order. */
    @FunctionalInterface
    public interface RangeVisitor {
        /** One range of lost wire sequence numbers, {@code first} to {@code last} inclusive. */
        void range(int first, int last);
    }

    /**
     * Reads the loss list of {@code words} words starting at {@code offset}.
     *
     * @return false if the list is malformed (a range start with no end)
     */
    public static boolean read(ByteBuf in, int offset, int words, RangeVisitor visitor) {
        for (int i = 0; i < words; i++) {
            int w = in.getInt(offset + 4 * i);
            if ((w & RANGE) != 0) {
                if (i + 1 >= words) {
                    return false;
                }
                int last = in.getInt(offset + 4 * ++i) & SeqNumbers.MAX;
                visitor.range(w & SeqNumbers.MAX, last);
            } else {
                visitor.range(w, w);
            }
        }
        return true;
    }
}
