package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Where one connection writes its data packets: side by side in a slab the size of one full GSO run
 * (up to 64 packets, at most 65,507 bytes), each packet a slice of it. Consecutive packets are then
 * consecutive bytes, and the UDP driver sends a run of them as one slice of the slab instead of copying
 * every packet into a run buffer ({@code SegmentingSender}): one of the sender's two copies per packet, worth
 * about a tenth of its CPU (issue 58, bench/results/2026-12-02-slab-sends). The slab returns to the allocator
 * when the last of its packets is acknowledged and written; while nothing is outstanding and nobody
 * holds a part of it, the next packet starts it over, so a request-response connection keeps one slab
 * and takes nothing from the allocator per exchange. A packet larger than {@code capacity} gets a buffer
 * of its own. Single-threaded, like the connection.
 */
final class PacketBuffers {
    /** Most packets in one slab: the kernel's {@code UDP_MAX_SEGMENTS} on older kernels. */
    static final int SLAB_PACKETS = 64;
    /** Most bytes in one slab: one UDP datagram's payload over IPv4, the most a GSO run carries. */
    static final int SLAB_BYTES = 65_507;

    private final ByteBufAllocator alloc;
    private final int capacity;
    private final int slabBytes;
    private ByteBuf slab;
    private int used;

    /**
     * @param alloc    where slabs come from
     * @param capacity the largest packet, header included (0: every packet gets a buffer of its own)
     */
    PacketBuffers(ByteBufAllocator alloc, int capacity) {
        this.alloc = alloc;
        this.capacity = capacity;
        this.slabBytes = capacity == 0 ? 0 : Math.min(SLAB_PACKETS, SLAB_BYTES / capacity) * capacity;
    }

    /** An empty buffer for a packet of up to {@code size} bytes: the slab's next {@code size} bytes when it fits. */
    ByteBuf take(int size) {
        if (size > capacity || slabBytes == 0) {
            return alloc.ioBuffer(size);
        }
        if (slab == null || slabBytes - used < size) {
            startSlab();
        }
        ByteBuf packet = slab.retainedSlice(used, size).clear();
        used += size;
        return packet;
    }

    /** Nothing is outstanding: the slab starts over if nobody holds a part of it, else it is let go. */
    void idle() {
        if (slab != null && slab.refCnt() == 1) {
            used = 0;
        } else {
            releaseSlab();
        }
    }

    /** Bytes of the current slab handed out (0 if there is none, or it starts over). */
    int used() {
        return slab == null ? 0 : used;
    }

    /** Lets the slab go (the connection closed); its packets still out keep it until they are released. */
    void releaseAll() {
        releaseSlab();
    }

    private void startSlab() {
        if (slab != null && slab.refCnt() == 1) {
            used = 0; // every packet of it is gone: write over it
            return;
        }
        releaseSlab();
        slab = alloc.ioBuffer(slabBytes, slabBytes);
        used = 0;
    }

    private void releaseSlab() {
        if (slab != null) {
            slab.release();
            slab = null;
            used = 0;
        }
    }
}
