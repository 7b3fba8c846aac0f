package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.SelectiveAckBitmap;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * The receiving half of a connection: puts the peer's DATA and FIN packets back in order, delivers
 * their payload to the application, tracks the end of the stream, and accounts the receive window
 * ({@code wnd_size} = the receive buffer minus reordered and delivered-but-unconsumed bytes).
 */
final class InboundStream {
    private final long receiveBufferSize;
    private final int maxPayload;
    private final UtpCallbacks callbacks;
    private final AckScheduler acks;
    private final ConnectionStats stats;
    private final ReorderBuffer reorder = new ReorderBuffer();

    private int ackNr;
    private long unconsumed;
    private boolean eofKnown;
    private int eofSeq;
    private boolean finished;
    private boolean discarding;
    private boolean released;

    InboundStream(UtpConfig config, UtpCallbacks callbacks, AckScheduler acks, ConnectionStats stats) {
        this.receiveBufferSize = config.receiveBufferSize();
        this.maxPayload = config.maxPayloadSize();
        this.callbacks = callbacks;
        this.acks = acks;
        this.stats = stats;
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

    /** The receive window to advertise, in bytes. */
    long window() {
        return Math.max(0, receiveBufferSize - reorder.bufferedBytes() - unconsumed);
    }

    /** The application processed {@code bytes} of delivered data. */
    void consumed(int bytes) {
        unconsumed = Math.max(0, unconsumed - bytes);
    }

    /** From now on, payload is acknowledged but dropped instead of delivered ({@code close()}). */
    void discardFurtherData() {
        discarding = true;
        unconsumed = 0;
    }

    void fillSelectiveAck(SelectiveAckBitmap bitmap) {
        reorder.fillSelectiveAck(ackNr, bitmap);
    }

    /**
     * Accepts a DATA or FIN packet: delivers it and whatever it unblocks, stores it if it is early, or
     * drops it if it is a duplicate, too far ahead, past the FIN or beyond the receive buffer. Asks the
     * {@link AckScheduler} for the acknowledgement each case needs. Callbacks run from inside; if one
     * of them closes the connection ({@link #releaseAll()}), this returns at once.
     *
     * @param packet the datagram (borrowed; payload is retained as a slice when kept)
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
        if (distance >= ReorderBuffer.MAX_DISTANCE || !hasRoomFor(distance, length)) {
            acks.requestImmediate();
            return;
        }
        if (type == PacketType.FIN && !eofKnown) {
            eofKnown = true;
            eofSeq = seq;
        }
        ByteBuf payload = length > 0 ? packet.retainedSlice(payloadOffset, length) : Unpooled.EMPTY_BUFFER;
        if (distance > 0) {
            reorder.put(seq, distance, payload);
            acks.onIrregularPacket();
            return;
        }
        deliver(payload);
        if (type == PacketType.FIN || length == 0) {
            acks.requestImmediate();
        } else {
            acks.onInOrderPacket(nowNanos);
        }
        ByteBuf next;
        while (!released && (next = reorder.take(UtpWire.seqAdd(ackNr, 1))) != null) {
            acks.requestImmediate();
            deliver(next);
        }
        if (!released && eofKnown && ackNr == eofSeq) {
            finished = true;
            acks.requestImmediate();
            callbacks.onEndOfStream();
        }
    }

    /**
     * Whether a packet fits the receive buffer (with one packet of slack for window races). The next
     * expected packet always fits while anything waits behind it: refusing it would leave the reorder
     * buffer full of data that can never be delivered.
     */
    private boolean hasRoomFor(int distance, int length) {
        return discarding || length == 0
                || (distance == 0 && !reorder.isEmpty())
                || reorder.bufferedBytes() + unconsumed + length <= receiveBufferSize + maxPayload;
    }

    private void deliver(ByteBuf payload) {
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
        unconsumed += length;
        callbacks.onData(payload);
    }

    /** Releases every stored payload; nothing more is delivered. */
    void releaseAll() {
        released = true;
        reorder.releaseAll();
    }
}
