package io.ferry.transport.striped;

import io.netty.buffer.ByteBuf;

import java.util.Map;
import java.util.TreeMap;

/**
 * The reading side's reorder buffer: the pieces the members brought, keyed by their offset in the
 * stream, until the stream's next byte is there. On the striped channel's event loop; {@link #heldBytes()}
 * may be read from any thread.
 */
final class StripeReassembly {

    private final TreeMap<Long, ByteBuf> pieces = new TreeMap<>();
    private volatile long heldBytes;
    private long nextOffset;

    /**
     * Takes a piece that starts at {@code offset}; false (and the piece is the caller's still) when that
     * offset was delivered or is held already: a peer that is no correct striped sender.
     */
    boolean add(long offset, ByteBuf piece) {
        if (offset < nextOffset || pieces.containsKey(offset)) {
            return false;
        }
        pieces.put(offset, piece);
        heldBytes += piece.readableBytes();
        return true;
    }

    /** Whether the stream's next byte is here. */
    boolean hasNext() {
        return !pieces.isEmpty() && pieces.firstKey() == nextOffset;
    }

    /** The piece that starts with the stream's next byte; it stays held until {@link #delivered}. */
    ByteBuf takeNext() {
        Map.Entry<Long, ByteBuf> first = pieces.pollFirstEntry();
        return first.getValue();
    }

    /**
     * {@code length} bytes from the start of the piece {@link #takeNext} gave were delivered; what is
     * left of it ({@code rest}, or null when all of it went) is held again at its new first byte.
     */
    void delivered(int length, ByteBuf rest) {
        nextOffset += length;
        heldBytes -= length;
        if (rest != null) {
            pieces.put(nextOffset, rest);
        }
    }

    boolean isEmpty() {
        return pieces.isEmpty();
    }

    /** Bytes held: received ahead of a gap, or in order while the application does not read. */
    long heldBytes() {
        return heldBytes;
    }

    /** The offset of the stream's next byte. */
    long nextOffset() {
        return nextOffset;
    }

    /** Releases everything held (the channel closed or its input was shut down). */
    void discard() {
        for (ByteBuf buf : pieces.values()) {
            buf.release();
        }
        pieces.clear();
        heldBytes = 0;
    }
}
