package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * How a connection keeps the payload of a received packet, and what keeping it costs.
 *
 * <p>A payload is a slice of the buffer the datagram was read into (no copy) when that buffer is not
 * much larger than the payload; otherwise it is copied into a buffer of its own size and the large
 * one is left to be released. So a peer cannot make a connection pin a 2 KiB or 64 KiB receive buffer
 * (one datagram, or many coalesced by {@code UDP_GRO} or read by {@code recvmmsg}) with each 1-byte
 * packet it sends.
 *
 * <p>The receive window is charged with the memory a kept payload holds, not with its payload bytes:
 * the capacity of the buffer behind it plus {@value #PER_BUFFER_OVERHEAD} bytes for the buffer object
 * itself (Linux charges a socket's receive buffer the same way, with an skb's truesize). A connection
 * therefore holds no more memory in received data than its receive buffer, plus one packet of slack.
 */
final class ReceivedPayloads {

    /** Bytes charged per kept buffer beyond its capacity: the buffer object and allocator bookkeeping. */
    static final int PER_BUFFER_OVERHEAD = 128;
    /**
     * A payload is sliced when the buffer it came in holds at most twice its bytes plus this: a buffer
     * of its own, read for one datagram.
     */
    static final int SLICE_SLACK = 256;

    private ReceivedPayloads() {
    }

    /**
     * The payload bytes {@code [offset, offset + length)} of {@code datagram} as a buffer the caller owns:
     * a retained slice or a copy.
     */
    static ByteBuf keep(ByteBuf datagram, int offset, int length, ByteBufAllocator alloc) {
        if (!copies(datagram, length)) {
            return datagram.retainedSlice(offset, length);
        }
        ByteBuf copy = alloc.buffer(length, length);
        ByteCopy.append(copy, datagram, offset, length);
        return copy;
    }

    /** Whether a payload of {@code length} bytes of {@code datagram} is copied rather than sliced (its buffer is shared or much larger). */
    static boolean copies(ByteBuf datagram, int length) {
        return backingCapacity(datagram) > 2L * length + SLICE_SLACK;
    }

    /** The memory a kept payload holds, as charged to the receive window. */
    static int charge(ByteBuf kept) {
        return (int) Math.min(Integer.MAX_VALUE, backingCapacity(kept) + PER_BUFFER_OVERHEAD);
    }

    /** The capacity of the buffer that owns {@code buf}'s memory (the root of slices and duplicates). */
    static long backingCapacity(ByteBuf buf) {
        ByteBuf root = buf;
        for (ByteBuf inner = root.unwrap(); inner != null; inner = inner.unwrap()) {
            root = inner;
        }
        // a pooled buffer occupies its whole size class, which may exceed the capacity asked for
        return Math.max(root.capacity(), (long) root.writerIndex() + root.maxFastWritableBytes());
    }
}
