package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The packets sent but not yet cumulatively acknowledged, indexed by sequence number, with the
 * per-packet state retransmission needs and the aggregate byte counts the send loop checks.
 *
 * <p>The sequence numbers held are always contiguous: {@code firstSeq() .. firstSeq() + count() - 1}
 * (mod 2^16). Storage is a set of parallel arrays in a power-of-two ring that grows on demand up to
 * {@link #MAX_PACKETS}; nothing is allocated per packet.
 *
 * <p>Each packet is in exactly one of four conditions: <em>in flight</em> (sent, counted in
 * {@link #bytesInFlight()}), <em>lost</em> (waiting to be sent again), <em>selectively acked</em>
 * (the receiver has it), or <em>departed</em>: it has left the network, but the acknowledgements
 * cannot yet say whether it arrived, because it lies beyond the reach of the selective ACK's bitmask
 * (see {@link LossRecovery}). A departed packet is neither counted in flight nor sent again; it is
 * declared lost once an acknowledgement can describe it and does not, or removed when acknowledged. A selectively acknowledged packet keeps its buffer until it is acknowledged
 * cumulatively: if every acknowledgement after the selective one is lost, resending it is the only
 * way to make the receiver acknowledge again (a selective ACK is advisory, RFC 2018).
 */
final class OutstandingPackets {
    /** Most packets ever outstanding; well below half the sequence space so comparisons stay sound. */
    static final int MAX_PACKETS = 16_384;
    private static final int INITIAL_CAPACITY = 16;

    private static final byte IN_FLIGHT = 1;
    private static final byte LOST = 2;
    private static final byte SACKED = 4;
    private static final byte DEPARTED = 8;

    /** Where packets are placed and where acknowledged ones go back. */
    private final PacketBuffers buffers;
    /** Each packet's place: the slab holding it, where in it it starts, and its size (header included). */
    private PacketBuffers.Slab[] slabs = new PacketBuffers.Slab[INITIAL_CAPACITY];
    private int[] offsets = new int[INITIAL_CAPACITY];
    private int[] sizes = new int[INITIAL_CAPACITY];
    private int[] payloads = new int[INITIAL_CAPACITY];
    private long[] sentAt = new long[INITIAL_CAPACITY];
    private long[] sendOrder = new long[INITIAL_CAPACITY];
    private int[] transmissions = new int[INITIAL_CAPACITY];
    private byte[] flags = new byte[INITIAL_CAPACITY];
    private int mask = INITIAL_CAPACITY - 1;

    private int firstSeq;
    private int count;
    private long bytesInFlight;
    private int packetsInFlight;
    private long unackedPayloadBytes;
    private int lostCount;
    private int departedCount;
    private int lostScanFrom;

    /** A ring that gives each packet a buffer of its own, released when it is acknowledged (nothing is reused). */
    OutstandingPackets() {
        this(new PacketBuffers(ByteBufAllocator.DEFAULT, 0));
    }

    /** A ring that places packets in {@code buffers}' slabs and gives each acknowledged one back. */
    OutstandingPackets(PacketBuffers buffers) {
        this.buffers = buffers;
    }

    boolean isEmpty() {
        return count == 0;
    }

    boolean isFull() {
        return count >= MAX_PACKETS;
    }

    int count() {
        return count;
    }

    int firstSeq() {
        return firstSeq;
    }

    /** Payload bytes sent and neither acknowledged nor declared lost. */
    long bytesInFlight() {
        return bytesInFlight;
    }

    /** Packets sent and neither acknowledged nor declared lost. */
    int packetsInFlight() {
        return packetsInFlight;
    }

    /** Packets neither acknowledged cumulatively nor selectively (in flight, lost or departed). */
    int unsackedPackets() {
        return packetsInFlight + lostCount + departedCount;
    }

    /** Packets that left the network without the acknowledgements being able to say whether they arrived. */
    int departedPackets() {
        return departedCount;
    }

    /** Payload bytes not yet acknowledged cumulatively or selectively. */
    long unackedPayloadBytes() {
        return unackedPayloadBytes;
    }

    /** Returns whether {@code seq} is one of the outstanding packets. */
    boolean contains(int seq) {
        int d = UtpWire.seqDiff(seq, firstSeq);
        return d >= 0 && d < count;
    }

    /**
     * Adds a packet that has not been sent yet and places its {@code size} bytes, to be written at
     * {@link #offset}({@code seq}) of {@link #buffer}({@code seq}): the next bytes of the connection's slab
     * ({@link PacketBuffers}), after the packet before it. Its sequence number must follow the last one
     * held (or be anything when empty).
     */
    void add(int seq, int size, int payload) {
        checkFollows(seq);
        PacketBuffers.Slab slab = buffers.take(size);
        put(seq, slab, buffers.lastOffset(), size, payload);
    }

    /** As {@link #add(int, int, int)}, for a packet already written: its readable bytes (ownership passes). */
    void add(int seq, ByteBuf packet, int payload) {
        checkFollows(seq);
        put(seq, PacketBuffers.own(packet), packet.readerIndex(), packet.readableBytes(), payload);
    }

    private void checkFollows(int seq) {
        if (count == 0) {
            firstSeq = seq;
        } else if (seq != UtpWire.seqAdd(firstSeq, count)) {
            throw new IllegalStateException("seq " + seq + " does not follow " + UtpWire.seqAdd(firstSeq, count - 1));
        }
    }

    private void put(int seq, PacketBuffers.Slab slab, int offset, int size, int payload) {
        if (count == slabs.length) {
            grow();
        }
        int i = seq & mask;
        slabs[i] = slab;
        offsets[i] = offset;
        sizes[i] = size;
        payloads[i] = payload;
        sentAt[i] = 0;
        sendOrder[i] = 0;
        transmissions[i] = 0;
        flags[i] = 0;
        count++;
        unackedPayloadBytes += payload;
    }

    /** The buffer packet {@code seq} lies in (shared with the packets beside it). */
    ByteBuf buffer(int seq) {
        return slabs[seq & mask].buf;
    }

    /** Where packet {@code seq} starts in its {@link #buffer}. */
    int offset(int seq) {
        return offsets[seq & mask];
    }

    /** Packet {@code seq}'s size, header included. */
    int size(int seq) {
        return sizes[seq & mask];
    }

    int payload(int seq) {
        return payloads[seq & mask];
    }

    long sentAtNanos(int seq) {
        return sentAt[seq & mask];
    }

    long sendOrder(int seq) {
        return sendOrder[seq & mask];
    }

    int transmissions(int seq) {
        return transmissions[seq & mask];
    }

    boolean isSacked(int seq) {
        return (flags[seq & mask] & SACKED) != 0;
    }

    boolean isInFlight(int seq) {
        return (flags[seq & mask] & IN_FLIGHT) != 0;
    }

    boolean isDeparted(int seq) {
        return (flags[seq & mask] & DEPARTED) != 0;
    }

    /**
     * Records a (re)transmission of {@code seq}. A selectively acknowledged packet sent again (only to
     * make the receiver acknowledge) stays selectively acknowledged and out of the flight.
     */
    void onSent(int seq, long nowNanos, long order) {
        int i = seq & mask;
        sentAt[i] = nowNanos;
        sendOrder[i] = order;
        transmissions[i]++;
        if ((flags[i] & SACKED) != 0) {
            return;
        }
        if ((flags[i] & LOST) != 0) {
            lostCount--;
        }
        if ((flags[i] & DEPARTED) != 0) {
            departedCount--;
        }
        if ((flags[i] & IN_FLIGHT) == 0) {
            bytesInFlight += payloads[i];
            packetsInFlight++;
        }
        flags[i] = IN_FLIGHT;
    }

    /**
     * Takes {@code seq}, in flight, out of the flight without declaring it lost: it has left the
     * network (something sent after it was delivered), but no acknowledgement so far could describe it.
     */
    void markDeparted(int seq) {
        int i = seq & mask;
        if ((flags[i] & IN_FLIGHT) == 0) {
            return;
        }
        bytesInFlight -= payloads[i];
        packetsInFlight--;
        flags[i] = DEPARTED;
        departedCount++;
    }

    /** Declares {@code seq} lost: it leaves the flight and waits to be sent again. */
    void markLost(int seq) {
        int i = seq & mask;
        if ((flags[i] & (LOST | SACKED)) != 0) {
            return;
        }
        if ((flags[i] & IN_FLIGHT) != 0) {
            bytesInFlight -= payloads[i];
            packetsInFlight--;
        }
        if ((flags[i] & DEPARTED) != 0) {
            departedCount--;
        }
        flags[i] = LOST;
        if (lostCount == 0 || UtpWire.seqDiff(seq, lostScanFrom) < 0) {
            lostScanFrom = seq;
        }
        lostCount++;
    }

    /**
     * Records a selective acknowledgement of {@code seq} (its buffer is kept until it is removed).
     *
     * @return the payload newly acknowledged, 0 if it already was
     */
    int markSacked(int seq) {
        int i = seq & mask;
        if ((flags[i] & SACKED) != 0) {
            return 0;
        }
        clearAccounting(i);
        flags[i] = SACKED;
        unackedPayloadBytes -= payloads[i];
        return payloads[i];
    }

    /**
     * Removes the first packet after a cumulative acknowledgement.
     *
     * @return the payload newly acknowledged (0 if it had been selectively acknowledged before)
     */
    int removeFirst() {
        int i = firstSeq & mask;
        int newlyAcked = 0;
        if ((flags[i] & SACKED) == 0) {
            clearAccounting(i);
            unackedPayloadBytes -= payloads[i];
            newlyAcked = payloads[i];
        }
        buffers.release(slabs[i]);
        slabs[i] = null;
        flags[i] = 0;
        firstSeq = UtpWire.seqAdd(firstSeq, 1);
        count--;
        if (count == 0) {
            buffers.idle();
        }
        return newlyAcked;
    }

    /** Returns the lowest lost sequence number, or -1 if none is lost. */
    int firstLost() {
        if (lostCount == 0) {
            return -1;
        }
        int start = UtpWire.seqDiff(lostScanFrom, firstSeq) > 0 ? UtpWire.seqDiff(lostScanFrom, firstSeq) : 0;
        for (int d = start; d < count; d++) {
            int seq = UtpWire.seqAdd(firstSeq, d);
            if ((flags[seq & mask] & LOST) != 0) {
                lostScanFrom = seq;
                return seq;
            }
        }
        throw new IllegalStateException("lost count " + lostCount + " but no lost packet");
    }

    /** Releases every packet and the slab, and forgets every packet. */
    void releaseAll() {
        buffers.releaseAll();
        for (int d = 0; d < count; d++) {
            int i = (firstSeq + d) & mask;
            if (slabs[i] != null) {
                buffers.release(slabs[i]);
                slabs[i] = null;
            }
            flags[i] = 0;
        }
        count = 0;
        bytesInFlight = 0;
        packetsInFlight = 0;
        unackedPayloadBytes = 0;
        lostCount = 0;
        departedCount = 0;
    }

    private void clearAccounting(int i) {
        if ((flags[i] & IN_FLIGHT) != 0) {
            bytesInFlight -= payloads[i];
            packetsInFlight--;
        }
        if ((flags[i] & LOST) != 0) {
            lostCount--;
        }
        if ((flags[i] & DEPARTED) != 0) {
            departedCount--;
        }
    }

    private void grow() {
        int capacity = slabs.length * 2;
        PacketBuffers.Slab[] newSlabs = new PacketBuffers.Slab[capacity];
        int[] newOffsets = new int[capacity];
        int[] newSizes = new int[capacity];
        int[] newPayloads = new int[capacity];
        long[] newSentAt = new long[capacity];
        long[] newSendOrder = new long[capacity];
        int[] newTransmissions = new int[capacity];
        byte[] newFlags = new byte[capacity];
        int newMask = capacity - 1;
        for (int d = 0; d < count; d++) {
            int seq = (firstSeq + d) & UtpWire.SEQ_MASK;
            int from = seq & mask;
            int to = seq & newMask;
            newSlabs[to] = slabs[from];
            newOffsets[to] = offsets[from];
            newSizes[to] = sizes[from];
            newPayloads[to] = payloads[from];
            newSentAt[to] = sentAt[from];
            newSendOrder[to] = sendOrder[from];
            newTransmissions[to] = transmissions[from];
            newFlags[to] = flags[from];
        }
        slabs = newSlabs;
        offsets = newOffsets;
        sizes = newSizes;
        payloads = newPayloads;
        sentAt = newSentAt;
        sendOrder = newSendOrder;
        transmissions = newTransmissions;
        flags = newFlags;
        mask = newMask;
    }
}
