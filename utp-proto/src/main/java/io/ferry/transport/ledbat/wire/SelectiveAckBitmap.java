package io.ferry.transport.ledbat.wire;

import io.netty.buffer.ByteBuf;

import java.util.Arrays;

/**
 * A reusable selective-ACK bitmask as carried by BEP 29 extension 1: bit {@code i} stands for the
 * packet {@code ack_nr + 2 + i}; bytes are in order and bit 0 is the least significant bit of the first
 * byte. The encoded length is the smallest multiple of 4 bytes that holds the highest set bit.
 */
public final class SelectiveAckBitmap {
    /** The largest bitmask this class encodes, in bytes (a multiple of 4 below 256). */
    public static final int MAX_BYTES = 128;
    /** The number of packets the largest bitmask can describe. */
    public static final int MAX_BITS = MAX_BYTES * 8;

    private final byte[] bytes = new byte[MAX_BYTES];
    private int highestBit = -1;

    /** Clears every bit. */
    public void clear() {
        if (highestBit >= 0) {
            Arrays.fill(bytes, 0, (highestBit >>> 3) + 1, (byte) 0);
            highestBit = -1;
        }
    }

    /**
     * Sets bit {@code i}.
     *
     * @param i bit index, {@code 0 <= i < MAX_BITS}
     */
    public void set(int i) {
        if (i < 0 || i >= MAX_BITS) {
            throw new IndexOutOfBoundsException("bit " + i + " outside 0.." + (MAX_BITS - 1));
        }
        bytes[i >>> 3] |= (byte) (1 << (i & 7));
        highestBit = Math.max(highestBit, i);
    }

    /** Returns whether bit {@code i} is set. */
    public boolean get(int i) {
        return i >= 0 && i < MAX_BITS && (bytes[i >>> 3] & (1 << (i & 7))) != 0;
    }

    /** Returns whether no bit is set. */
    public boolean isEmpty() {
        return highestBit < 0;
    }

    /** Returns the encoded length in bytes: 0 when empty, otherwise a multiple of 4. */
    public int encodedLength() {
        return highestBit < 0 ? 0 : ((highestBit >>> 5) + 1) * 4;
    }

    /** Appends the encoded bitmask (without the extension header) at the writer index. */
    public void writeTo(ByteBuf out) {
        out.writeBytes(bytes, 0, encodedLength());
    }
}
