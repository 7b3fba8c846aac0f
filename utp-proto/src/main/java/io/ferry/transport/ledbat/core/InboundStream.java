package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.SelectiveAckBitmap;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;

/**
 * The receiving half of a connection: puts the peer's DATA and FIN packets back in order, delivers
 * their payload to the application, tracks the end of the stream, and accounts the receive window
 * ({@code wnd_size} = the receive buffer minus the memory that reordered and delivered-but-unconsumed
 * payloads hold, as {@link ReceivedPayloads} charges it, expressed in payload bytes).
 */
final class InboundStream {
    /** A window update is worth a packet once the window grew by this much, or by a quarter of a smaller buffer. */
    private static final int WINDOW_UPDATE_CAP = 64 * 1024;

    private final ReceiveBufferTuning buffer;
    private final int maxPayload;
    private final ConnectionOutput out;
    private final AckScheduler acks;
    private final ConnectionStats stats;
    private final ReorderBuffer reorder = new ReorderBuffer();
    private final UnconsumedCharges unconsumed = new UnconsumedCharges();
    private final ByteBufAllocator alloc;
    private final GatheredPayloads gathered;

    private int ackNr;
    private boolean eofKnown;
    private int eofSeq;
    private boolean finished;
    private boolean discarding;
    /** Inside a read batch: in-order payloads that would be copied are gathered ({@link GatheredPayloads}). */
    private boolean batching;
    /** Memory charged per payload byte, averaged over recent packets (at least 1). */
    private double chargePerByte = 1.0;

    InboundStream(UtpConfig config, ConnectionOutput out, AckScheduler acks, ConnectionStats stats) {
        this.buffer = new ReceiveBufferTuning(config.receiveBufferSize(), config.receiveBufferMax());
        this.maxPayload = config.maxPayloadSize();
        this.out = out;
        this.acks = acks;
        this.stats = stats;
        this.alloc = config.allocator();
        this.gathered = new GatheredPayloads(alloc);
    }

    /** A read batch begins: in-order payloads copied out of shared receive buffers are gathered until it ends. */
    void beginBatch() {
        batching = true;
    }

    /** The read batch ended: what was gathered goes to the application. */
    void endBatch() {
        batching = false;
        flushGathered();
    }

    /** Sets the sequence number of the last packet considered received (before the first data). */
    void start(int lastReceivedSeq) {
        ackNr = lastReceivedSeq & UtpWire.SEQ_MASK;
    }

    /** The last sequence number received in order: the {@code ack_nr} to send. */
    int ackNr() {
        return ackNr;
    }

    /** Whether the peer's FIN was reached in order. */
    boolean isFinished() {
        return finished;
    }

    /** Whether packets are waiting behind a gap (acknowledgements then carry a selective ACK). */
    boolean hasGap() {
        return !reorder.isEmpty();
    }

    /**
     * The receive window to advertise: the payload bytes the free memory takes. A peer counts its
     * flight in payload bytes, and every kept payload is charged its buffer and overhead too (a
     * 1400-byte payload in a 2 KiB buffer costs half as much again); a window of free memory would let
     * a large flight overrun the buffer, and the packets past it would be dropped and sent again.
     */
    long window() {
        long free = buffer.limit() - heldBytes();
        return free <= 0 ? 0 : (long) (free / chargePerByte);
    }

    /**
     * The application processed {@code bytes} of delivered data; the receive buffer may grow (see
     * {@link ReceiveBufferTuning}), which the window then shows.
     */
    void consumed(int bytes, long nowNanos) {
        unconsumed.consume(bytes);
        if (!discarding) {
            buffer.onConsumed(bytes, chargePerByte, nowNanos);
        }
    }

    /**
     * Whether the window grew enough since {@code advertised} (the last one sent) to tell the peer at once,
     * without waiting for data to acknowledge: by two packets and a quarter of the buffer (at most
     * {@link #WINDOW_UPDATE_CAP}), or from less than a packet to at least one (a peer stalled on a closed
     * window waits for this).
     */
    boolean windowUpdateDue(long advertised) {
        long window = window();
        long threshold = Math.max(2L * maxPayload, Math.min(bufferLimit() / 4, WINDOW_UPDATE_CAP));
        return window - advertised >= threshold || (advertised < maxPayload && window >= maxPayload);
    }

    /** A round-trip sample from the packet timestamps, for sizing the receive buffer. */
    void onRttSample(long nanos) {
        buffer.onRttSample(nanos);
    }

    /** The memory received data may hold now (the receive buffer's current size). */
    long bufferLimit() {
        return buffer.limit();
    }

    /** Memory held in received payloads: reordered, gathered for delivery, and delivered but not yet consumed. */
    long heldBytes() {
        return reorder.bufferedBytes() + gathered.charge() + unconsumed.charge();
    }

    /** From now on, payload is acknowledged but dropped instead of delivered ({@code close()}). */
    void discardFurtherData() {
        flushGathered(); // accepted before the close, as if delivered
        discarding = true;
        unconsumed.clear();
    }

    void fillSelectiveAck(SelectiveAckBitmap bitmap) {
        reorder.fillSelectiveAck(ackNr, bitmap);
    }

    /**
     * Accepts a DATA or FIN packet: delivers it and whatever it unblocks, stores it if it is early, or
     * drops it if it is a duplicate, too far ahead, past the FIN or beyond the receive buffer. Asks the
     * {@link AckScheduler} for the acknowledgement each case needs. Delivered payload and the end of
     * the stream go to the connection's output for its driver to collect.
     *
     * @param packet the datagram (borrowed; a kept payload is a retained slice or a copy, see
     *               {@link ReceivedPayloads})
     */
    void onPacket(PacketType type, int seq, ByteBuf packet, int payloadOffset, int length, long nowNanos) {
        if (finished || (eofKnown && UtpWire.seqDiff(seq, eofSeq) > 0)) {
            acks.requestImmediate();
            return;
        }
        int distance = UtpWire.seqDiff(seq, UtpWire.seqAdd(ackNr, 1));
        if (distance < 0 || (distance > 0 && reorder.contains(seq))) {
            stats.duplicatePacketsReceived++;
            acks.onIrregularPacket();
            return;
        }
        if (distance >= ReorderBuffer.MAX_DISTANCE) {
            acks.requestImmediate();
            return;
        }
        if (distance == 0 && length > 0 && gather(packet, payloadOffset, length)) {
            ackNr = UtpWire.seqAdd(ackNr, 1);
            stats.payloadBytesReceived += length;
        } else {
            ByteBuf payload = length > 0 ? ReceivedPayloads.keep(packet, payloadOffset, length, alloc) : Unpooled.EMPTY_BUFFER;
            int charge = length > 0 ? ReceivedPayloads.charge(payload) : 0; // once: it walks the buffer's wrappers
            if (length > 0) {
                chargePerByte = Math.max(1.0, (7 * chargePerByte + charge / (double) length) / 8);
            }
            if (!hasRoomFor(distance, payload, charge)) {
                payload.release();
                acks.requestImmediate();
                return;
            }
            if (distance > 0) {
                markEnd(type, seq);
                reorder.put(seq, distance, payload, charge);
                acks.onIrregularPacket();
                return;
            }
            deliver(payload, charge);
        }
        markEnd(type, seq);
        if (type == PacketType.FIN || length == 0) {
            acks.requestImmediate();
        } else {
            acks.onInOrderPacket(nowNanos);
        }
        ByteBuf next;
        while ((next = reorder.take(UtpWire.seqAdd(ackNr, 1))) != null) {
            acks.requestImmediate();
            deliver(next, ReceivedPayloads.charge(next));
        }
        if (eofKnown && ackNr == eofSeq) {
            flushGathered(); // the payload before the end of the stream
            finished = true;
            acks.requestImmediate();
            out.event(UtpConnection.END_OF_STREAM);
        }
    }

    /**
     * Whether a packet fits the receive buffer (with one packet of slack for window races). The next
     * expected packet always fits while anything waits behind it: refusing it would leave the reorder
     * buffer full of data that can never be delivered.
     */
    private boolean hasRoomFor(int distance, ByteBuf payload, int charge) {
        return discarding || !payload.isReadable()
                || (distance == 0 && !reorder.isEmpty())
                || heldBytes() + charge <= buffer.limit() + maxPayload;
    }

    private void markEnd(PacketType type, int seq) {
        if (type == PacketType.FIN && !eofKnown) {
            eofKnown = true;
            eofSeq = seq;
        }
    }

    /**
     * Copies an in-order payload into the read batch's gathered buffer, starting one when the last is full;
     * false when it is to be kept on its own: outside a read batch, when it would be sliced (no copy to
     * save), when discarding, or when a new buffer (an eighth of the receive buffer, at most 64 KiB, at
     * least four packets) does not fit the memory the receive buffer leaves.
     */
    private boolean gather(ByteBuf packet, int offset, int length) {
        if (!batching || discarding || !ReceivedPayloads.copies(packet, length)) {
            return false;
        }
        if (!gathered.fits(length)) {
            flushGathered();
            long capacity = Math.min(GatheredPayloads.MAX_CAPACITY, buffer.limit() / 8);
            if (capacity < 4L * maxPayload || capacity < length
                    || heldBytes() + capacity + ReceivedPayloads.PER_BUFFER_OVERHEAD > buffer.limit() + maxPayload) {
                return false;
            }
            gathered.start((int) capacity);
        }
        gathered.append(packet, offset, length);
        return true;
    }

    /** Delivers what was gathered, ahead of anything delivered after it. */
    private void flushGathered() {
        ByteBuf payload = gathered.take();
        if (payload == null) {
            return;
        }
        int length = payload.readableBytes();
        int charge = ReceivedPayloads.charge(payload);
        chargePerByte = Math.max(1.0, (7 * chargePerByte + charge / (double) length) / 8);
        unconsumed.add(length, charge);
        out.deliver(payload);
    }

    /** Delivers the next in-order payload, which holds {@code charge} bytes of memory ({@link ReceivedPayloads#charge}). */
    private void deliver(ByteBuf payload, int charge) {
        flushGathered();
        ackNr = UtpWire.seqAdd(ackNr, 1);
        int length = payload.readableBytes();
        if (length == 0) {
            payload.release();
            return;
        }
        stats.payloadBytesReceived += length;
        if (discarding) {
            payload.release();
            return;
        }
        unconsumed.add(length, charge);
        out.deliver(payload);
    }

    /** Delivers what was gathered (it was taken in order before the end) and releases every stored payload; nothing more is delivered. */
    void releaseAll() {
        flushGathered();
        reorder.releaseAll();
    }
}
