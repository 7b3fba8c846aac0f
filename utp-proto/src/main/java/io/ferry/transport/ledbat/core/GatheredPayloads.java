package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The in-order payload of one read batch, gathered into one buffer for the application instead of a
 * buffer per packet. It serves the payloads {@link ReceivedPayloads} would copy anyway (those that arrived
 * in a shared receive buffer, as {@code UDP_GRO} and {@code recvmmsg} fill one with many datagrams): the
 * copy goes into the batch's buffer, so that one allocation, one delivery and one {@code channelRead}
 * serve up to {@link #MAX_CAPACITY} bytes, as a TCP read does, rather than each 1.4 KB packet its own
 * (issue 58: delivery once per read batch, in-order payloads coalesced).
 *
 * <p>The buffer is charged to the receive window at its capacity from its first byte (the memory it
 * holds, as {@link ReceivedPayloads#charge} counts it); one left mostly empty at the batch's end is copied
 * to its own size before it is delivered, so that a batch of one or two packets does not hold 64 KiB.
 */
final class GatheredPayloads {

    /** The largest buffer gathered into: what one {@code UDP_GRO} read holds at most. */
    static final int MAX_CAPACITY = 64 * 1024;

    private final ByteBufAllocator alloc;
    private ByteBuf buf;
    /** {@code buf}'s charge, taken once when it starts: the receive window asks for it on every acknowledgement. */
    private long charge;

    GatheredPayloads(ByteBufAllocator alloc) {
        this.alloc = alloc;
    }

    /** Whether {@code length} more bytes fit the buffer being gathered (false when none is). */
    boolean fits(int length) {
        return buf != null && buf.writableBytes() >= length;
    }

    /** Starts a buffer of {@code capacity} bytes; the last one must have been taken. */
    void start(int capacity) {
        assert buf == null;
        buf = alloc.buffer(capacity, capacity);
        charge = ReceivedPayloads.charge(buf);
    }

    /** Copies {@code length} bytes of {@code datagram} from {@code offset} into the buffer ({@link #fits} first). */
    void append(ByteBuf datagram, int offset, int length) {
        ByteCopy.append(buf, datagram, offset, length);
    }

    /** The memory the buffer being gathered holds, as charged to the receive window; 0 when there is none. */
    long charge() {
        return charge;
    }

    /**
     * The gathered bytes, ownership passing to the caller (copied to a buffer of their own size when they
     * fill at most a quarter of it); null when nothing was gathered.
     */
    ByteBuf take() {
        ByteBuf b = buf;
        buf = null;
        charge = 0;
        if (b == null) {
            return null;
        }
        int length = b.readableBytes();
        if (length > b.capacity() / 4) {
            return b;
        }
        try {
            ByteBuf own = alloc.buffer(length, length);
            ByteCopy.append(own, b, b.readerIndex(), length);
            return own;
        } finally {
            b.release();
        }
    }

    /** Drops what is gathered (the connection is discarding its buffers without delivering them). */
    void release() {
        if (buf != null) {
            buf.release();
            buf = null;
            charge = 0;
        }
    }
}
