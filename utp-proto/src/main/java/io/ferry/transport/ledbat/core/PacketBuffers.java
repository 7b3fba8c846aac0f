package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.ArrayDeque;

/**
 * The buffers of one connection's data packets, reused: a packet acknowledged while only the connection
 * still holds it goes back here, and the next new packet is written into it. A bulk transfer's steady
 * state then takes nothing from the allocator and gives nothing back per packet; in the JFR profile of
 * the send path, Netty's adaptive allocator (its magazine on allocation, its MPSC free queue and lock on
 * release) was about a fifth of the core's time (issue 58, bench/results/2026-11-30-packet-buffers).
 *
 * <p>A buffer still referenced elsewhere when its packet is acknowledged (a datagram the socket has not
 * written yet) is released instead, so nothing here waits on another thread. One acknowledgement may
 * cover a whole window (a receiver acknowledges a read batch at once), so as many buffers wait as the
 * caller's limit allows: the most packets outstanding since the connection was last idle, which were held
 * then anyway, or {@link #KEPT}; an idle connection keeps {@link #KEPT_IDLE}, so a thousand quiet
 * connections do not hold a window of memory each. Single-threaded, like the connection.
 */
final class PacketBuffers {
    /** Buffers kept for reuse whatever the flight was. */
    static final int KEPT = 128;
    /** Buffers kept while nothing is outstanding. */
    static final int KEPT_IDLE = 4;

    private final ByteBufAllocator alloc;
    private final int capacity;
    private final ArrayDeque<ByteBuf> free = new ArrayDeque<>();

    /**
     * @param alloc    where new buffers come from
     * @param capacity every pooled buffer's size: the largest packet, header included
     */
    PacketBuffers(ByteBufAllocator alloc, int capacity) {
        this.alloc = alloc;
        this.capacity = capacity;
    }

    /** An empty buffer with room for {@code size} bytes; pooled when {@code size} fits the pool's buffers. */
    ByteBuf take(int size) {
        if (size <= capacity) {
            ByteBuf b = free.pollLast();
            return b != null ? b : alloc.ioBuffer(capacity, capacity);
        }
        return alloc.ioBuffer(size);
    }

    /**
     * Gives {@code packet} up: kept for reuse if only the caller holds it, it is a pooled one and fewer than
     * {@code max(limit, KEPT)} wait, else released.
     */
    void recycle(ByteBuf packet, int limit) {
        if (free.size() < Math.max(limit, KEPT) && packet.refCnt() == 1 && packet.capacity() == capacity && packet.maxCapacity() == capacity) {
            free.addLast(packet.clear());
        } else {
            packet.release();
        }
    }

    /** Nothing is outstanding: keep only a few buffers. */
    void trim() {
        while (free.size() > KEPT_IDLE) {
            free.pollFirst().release();
        }
    }

    /** Buffers waiting for reuse. */
    int kept() {
        return free.size();
    }

    /** Releases every buffer kept (the connection closed). */
    void releaseAll() {
        for (ByteBuf b; (b = free.pollFirst()) != null; ) {
            b.release();
        }
    }
}
