package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.wire.SelectiveAckBitmap;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;

/**
 * Payloads received ahead of a gap, indexed by sequence number, waiting for the gap to fill. Also the
 * source of the selective-ACK bitmask sent back to the peer.
 *
 * <p>Entries lie within {@link #MAX_DISTANCE} packets after the last in-order packet. Storage is a
 * power-of-two ring that grows on demand.
 */
final class ReorderBuffer {
    /** Farthest a stored packet may be ahead of the next expected one. */
    static final int MAX_DISTANCE = OutstandingPackets.MAX_PACKETS;
    private static final int INITIAL_CAPACITY = 16;

    private ByteBuf[] payloads = new ByteBuf[INITIAL_CAPACITY];
    private int mask = INITIAL_CAPACITY - 1;
    private int count;
    private long bufferedBytes;
    private int highestSeq;

    boolean isEmpty() {
        return count == 0;
    }

    /** Memory held by the stored payloads, as {@link ReceivedPayloads#charge} counts it. */
    long bufferedBytes() {
        return bufferedBytes;
    }

    boolean contains(int seq) {
        ByteBuf p = payloads[seq & mask];
        return p != null && highestSeqAtLeast(seq);
    }

    /**
     * Stores the payload of {@code seq}, which must lie {@code distance} packets after the next
     * expected one ({@code 0 < distance < MAX_DISTANCE}) and not be stored yet; it holds {@code charge}
     * bytes of memory ({@link ReceivedPayloads#charge}). Ownership of {@code payload} passes to this buffer.
     */
    void put(int seq, int distance, ByteBuf payload, int charge) {
        while (distance >= payloads.length) {
            grow(UtpWire.seqAdd(seq, -distance));
        }
        payloads[seq & mask] = payload;
        if (count == 0 || UtpWire.seqDiff(seq, highestSeq) > 0) {
            highestSeq = seq;
        }
        count++;
        bufferedBytes += charge;
    }

    /** Removes and returns the payload of {@code seq}, or {@code null} if it is not stored. */
    ByteBuf take(int seq) {
        if (count == 0) {
            return null;
        }
        int i = seq & mask;
        ByteBuf p = payloads[i];
        if (p == null || !highestSeqAtLeast(seq)) {
            return null;
        }
        payloads[i] = null;
        count--;
        bufferedBytes -= ReceivedPayloads.charge(p);
        return p;
    }

    /**
     * Fills {@code bitmap} for an acknowledgement of {@code ackNr}: bit {@code i} is set when packet
     * {@code ackNr + 2 + i} is stored.
     */
    void fillSelectiveAck(int ackNr, SelectiveAckBitmap bitmap) {
        bitmap.clear();
        if (count == 0) {
            return;
        }
        int first = UtpWire.seqAdd(ackNr, 2);
        int span = Math.min(UtpWire.seqDiff(highestSeq, first) + 1, SelectiveAckBitmap.MAX_BITS);
        for (int i = 0; i < span; i++) {
            if (payloads[(first + i) & mask] != null) {
                bitmap.set(i);
            }
        }
    }

    /** Releases every stored payload. */
    void releaseAll() {
        for (int i = 0; i < payloads.length; i++) {
            if (payloads[i] != null) {
                payloads[i].release();
                payloads[i] = null;
            }
        }
        count = 0;
        bufferedBytes = 0;
    }

    private boolean highestSeqAtLeast(int seq) {
        return count > 0 && UtpWire.seqDiff(highestSeq, seq) >= 0;
    }

    private void grow(int nextExpected) {
        int capacity = payloads.length * 2;
        ByteBuf[] grown = new ByteBuf[capacity];
        int newMask = capacity - 1;
        for (int d = 0; d < payloads.length; d++) {
            int seq = UtpWire.seqAdd(nextExpected, d);
            ByteBuf p = payloads[seq & mask];
            if (p != null) {
                grown[seq & newMask] = p;
            }
        }
        payloads = grown;
        mask = newMask;
    }
}
