package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Where one connection writes its packets: side by side in a slab the size of one full GSO run (up to 64
 * packets, at most 65,507 bytes). A packet is a place in a slab (offset and size), not a buffer object of
 * its own: consecutive packets are consecutive bytes, the UDP driver sends a run of them as one slice of
 * the slab ({@code SegmentingSender}), and the connection counts the packets it holds in each slab with a
 * plain integer. A packet that was a retained slice cost the sender an object and four atomic reference
 * count changes (taken, transmitted, written, acknowledged); the slab's own count now changes once per slab
 * here and once per run on its way to the socket (issue 58, bench/results/2026-12-02-slab-places).
 *
 * <p>This class holds one reference to each slab that is current or still holds a packet; the slab
 * returns to the allocator when both are over and the socket let go of its last run. While nothing is
 * outstanding and nobody else holds the slab, the next packet starts it over, so a request-response
 * connection keeps one slab and takes nothing from the allocator per exchange. A packet larger than
 * {@code capacity} gets a slab of its own. Single-threaded, like the connection.
 */
final class PacketBuffers {
    /** Most packets in one slab: the kernel's {@code UDP_MAX_SEGMENTS} on older kernels. */
    static final int SLAB_PACKETS = 64;
    /** Most bytes in one slab: one UDP datagram's payload over IPv4, the most a GSO run carries. */
    static final int SLAB_BYTES = 65_507;

    /** A buffer packets are written into, and how many of them the connection still holds. */
    static final class Slab {
        final ByteBuf buf;
        /** Packets placed in this slab and not yet {@linkplain #release released}. */
        int live;

        Slab(ByteBuf buf) {
            this.buf = buf;
        }
    }

    private final ByteBufAllocator alloc;
    private final int capacity;
    private final int slabBytes;
    private Slab slab;
    private int used;
    private int lastOffset;

    /**
     * @param alloc    where slabs come from
     * @param capacity the largest packet, header included (0: every packet gets a buffer of its own)
     */
    PacketBuffers(ByteBufAllocator alloc, int capacity) {
        this.alloc = alloc;
        this.capacity = capacity;
        this.slabBytes = capacity == 0 ? 0 : Math.min(SLAB_PACKETS, SLAB_BYTES / capacity) * capacity;
    }

    /**
     * Places a packet of {@code size} bytes: the slab's next {@code size} bytes when they fit. Returns the
     * slab, its count of packets one higher; the packet starts at {@link #lastOffset()}.
     */
    Slab take(int size) {
        Slab s;
        if (size > capacity || slabBytes == 0) {
            s = new Slab(alloc.ioBuffer(size, size));
            lastOffset = 0;
        } else {
            if (slab == null || slabBytes - used < size) {
                startSlab();
            }
            s = slab;
            lastOffset = used;
            used += size;
        }
        s.live++;
        return s;
    }

    /** Where the packet {@link #take} placed last starts in its slab. */
    int lastOffset() {
        return lastOffset;
    }

    /** A packet that {@code buf} holds whole: a slab of its own (ownership of {@code buf} passes). */
    static Slab own(ByteBuf buf) {
        Slab s = new Slab(buf);
        s.live = 1;
        return s;
    }

    /** The connection let go of one packet in {@code s}: the slab goes back once it is neither current nor holds any. */
    void release(Slab s) {
        if (--s.live == 0 && s != slab) {
            s.buf.release();
        }
    }

    /** Nothing is outstanding: the slab starts over if nobody holds a part of it, else it is let go. */
    void idle() {
        if (slab != null && slab.buf.refCnt() == 1) {
            used = 0;
        } else {
            letGo();
        }
    }

    /** Bytes of the current slab handed out (0 if there is none, or it starts over). */
    int used() {
        return slab == null ? 0 : used;
    }

    /** Lets the slab go (the connection closed); the packets still in it keep it until they are released. */
    void releaseAll() {
        letGo();
    }

    private void startSlab() {
        if (slab != null && slab.live == 0 && slab.buf.refCnt() == 1) {
            used = 0; // every packet of it is gone: write over it
            return;
        }
        letGo();
        slab = new Slab(alloc.ioBuffer(slabBytes, slabBytes));
        used = 0;
    }

    /** The current slab stops being current: released now if it holds no packet, else by its last one. */
    private void letGo() {
        Slab s = slab;
        if (s != null) {
            slab = null;
            used = 0;
            if (s.live == 0) {
                s.buf.release();
            }
        }
    }
}
