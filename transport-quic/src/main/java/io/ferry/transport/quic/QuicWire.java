package io.ferry.transport.quic;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * What Ferry puts on a QUIC connection besides the application's bytes. The client opens each bidirectional
 * data stream (one, or one per member of a striped connection) with a 4-byte preamble (QUIC makes a stream
 * known to the peer only when bytes arrive on it, and a listener must see a connection before the
 * application writes). For each data stream each end opens a unidirectional stream of <em>receipts</em>: the
 * data stream's id (8 bytes), then 8-byte counts of the application bytes it has received on that stream,
 * the top bit set once the end of stream arrived. QUIC's acknowledgements are the codec's own
 * and invisible to Ferry; the receipts are how a lingering close learns that the peer has every byte.
 */
final class QuicWire {

    /** "FQ" and version 2 (version 1's receipt streams named no data stream). */
    static final int PREAMBLE = 0x4651_0002;
    static final int PREAMBLE_BYTES = 4;
    static final int RECEIPT_BYTES = 8;
    private static final long END_OF_STREAM = 1L << 63;

    private QuicWire() {
    }

    static ByteBuf preamble(ByteBufAllocator alloc) {
        return alloc.directBuffer(PREAMBLE_BYTES).writeInt(PREAMBLE);
    }

    /** The head of a receipt stream: the data stream it reports on. */
    static ByteBuf receiptHeader(ByteBufAllocator alloc, long dataStream) {
        return alloc.directBuffer(RECEIPT_BYTES).writeLong(dataStream);
    }

    static ByteBuf receipt(ByteBufAllocator alloc, long received, boolean endOfStream) {
        return alloc.directBuffer(RECEIPT_BYTES).writeLong(endOfStream ? received | END_OF_STREAM : received);
    }

    /** The count of a receipt. */
    static long receivedOf(long receipt) {
        return receipt & ~END_OF_STREAM;
    }

    /** Whether a receipt says the end of stream arrived. */
    static boolean endOfStreamOf(long receipt) {
        return (receipt & END_OF_STREAM) != 0;
    }
}
