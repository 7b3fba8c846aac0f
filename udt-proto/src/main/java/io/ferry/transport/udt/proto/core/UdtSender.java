package io.ferry.transport.udt.proto.core;

import io.ferry.transport.udt.proto.wire.UdtPacket;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.ArrayDeque;

/**
 * The sending half of a UDT connection (draft-gg-udt-03 section 6.1): what the application wrote
 * and nobody has sent, the packets sent and not acknowledged, and the loss list, which goes first.
 *
 * <p>A byte stream is cut into packets when they first leave, so small writes flushed together share
 * a packet; a message is cut when it is written, each packet carrying the message number and its
 * boundary bits. Retransmissions are not limited by the window (UDT4 neither); new packets are, by the
 * smaller of the congestion window and the receiver's flow window.
 */
final class UdtSender {
    /** One packet's payload and message word. */
    static final class Block {
        final ByteBuf payload;
        final int messageWord;
        boolean resent;

        Block(ByteBuf payload, int messageWord) {
            this.payload = payload;
            this.messageWord = messageWord;
        }
    }

    /** Stream writes up to this size are copied into the tail buffer rather than queued as they are. */
    static final int COPIED_WRITE_BYTES = 512;
    /** The tail buffer's size: a few packets of small writes. */
    static final int TAIL_BYTES = 16 * 1024;

    private final ByteBufAllocator alloc;
    private final int payloadBytes;
    private final boolean messageMode;
    private final int orderFlag;
    private final ArrayDeque<ByteBuf> stream = new ArrayDeque<>();
    /**
     * The last buffer of {@link #stream} when it is this sender's own, with room: small writes are copied
     * into it, so that a packet of them is one slice, not dozens of pieces (64-byte writes, each behind a
     * 4-byte frame header, made 42 pieces of every packet). Null when the last buffer is an application's.
     */
    private ByteBuf tail;
    private final ArrayDeque<Block> messages = new ArrayDeque<>();
    private final SeqRing<Block> unacked;
    private final LossRanges loss = new LossRanges();
    private long pendingBytes;
    private long unackedBytes;
    private long next;
    private int nextMessage = 1;
    private int flowWindow;
    private long packetsSent;
    private long bytesSent;
    private long packetsResent;

    UdtSender(UdtConfig config, int payloadBytes, long initialSeq, int peerFlowWindow) {
        this.alloc = config.allocator();
        this.payloadBytes = payloadBytes;
        this.messageMode = config.messageMode();
        this.orderFlag = config.inOrder() ? UdtPacket.IN_ORDER : 0;
        this.unacked = new SeqRing<>(initialSeq, 64, 1 << 20);
        this.next = initialSeq;
        this.flowWindow = peerFlowWindow;
    }

    /** Queues application data; ownership passes. In message mode {@code data} is one message. */
    void write(ByteBuf data) {
        int bytes = data.readableBytes();
        if (!messageMode) {
            if (bytes <= COPIED_WRITE_BYTES) {
                if (bytes > 0) {
                    room(bytes).writeBytes(data, data.readerIndex(), bytes);
                    pendingBytes += bytes;
                }
                data.release();
                return;
            }
            tail = null;
            stream.add(data);
            pendingBytes += bytes;
            return;
        }
        int number = nextMessage;
        nextMessage = nextMessage == UdtPacket.MESSAGE_NUMBER_MASK ? 1 : nextMessage + 1;
        try {
            int pieces = Math.max(1, (bytes + payloadBytes - 1) / payloadBytes);
            for (int i = 0; i < pieces; i++) {
                int boundary = (i == 0 ? UdtPacket.BOUNDARY_FIRST : 0) | (i == pieces - 1 ? UdtPacket.BOUNDARY_LAST : 0);
                int len = Math.min(payloadBytes, data.readableBytes());
                messages.add(new Block(data.readRetainedSlice(len), boundary | orderFlag | number));
            }
            pendingBytes += bytes;
        } finally {
            data.release();
        }
    }

    /** Appends a 4-byte big-endian word to the byte stream (a framing header); stream mode only. */
    void writeWord(int word) {
        if (messageMode) {
            throw new IllegalStateException("a message socket writes whole messages");
        }
        room(4).writeInt(word);
        pendingBytes += 4;
    }

    /** The tail buffer, with room for {@code bytes} without growing (slices of it are out). */
    private ByteBuf room(int bytes) {
        if (tail == null || tail.writableBytes() < bytes) {
            tail = alloc.buffer(Math.max(TAIL_BYTES, bytes));
            stream.add(tail);
        }
        return tail;
    }

    /**
     * The sequence count to send next: the lowest loss, else the next new packet if the window
     * ({@code windowPackets}, already the smaller of congestion and flow windows) allows; -1 if none.
     */
    long peekNext(int windowPackets) {
        while (!loss.isEmpty()) {
            long s = loss.first();
            if (s >= unacked.base() && s < next) {
                return s;
            }
            loss.remove(s);
        }
        if (pendingBytes > 0 && next - unacked.base() < Math.min(windowPackets, flowWindow) && unacked.fits(next)) {
            return next;
        }
        return -1;
    }

    /** Takes the packet {@link #peekNext} named; its payload stays owned here. */
    Block take(long seq) {
        if (seq != next) {
            loss.remove(seq);
            Block b = unacked.get(seq);
            b.resent = true;
            packetsResent++;
            return b;
        }
        Block b = messageMode ? messages.poll() : cutStream();
        pendingBytes -= b.payload.readableBytes();
        unackedBytes += b.payload.readableBytes();
        unacked.put(next++, b);
        packetsSent++;
        bytesSent += b.payload.readableBytes();
        return b;
    }

    private Block cutStream() {
        int want = (int) Math.min(payloadBytes, pendingBytes);
        ByteBuf head = stream.peek();
        ByteBuf payload;
        if (head.readableBytes() >= want) {
            payload = head.readRetainedSlice(want);
            if (!head.isReadable()) {
                release(stream.poll());
            }
        } else {
            payload = alloc.buffer(want);
            while (payload.isWritable()) {
                ByteBuf h = stream.peek();
                int n = Math.min(payload.writableBytes(), h.readableBytes());
                payload.writeBytes(h, n);
                if (!h.isReadable()) {
                    release(stream.poll());
                }
            }
        }
        return new Block(payload, UdtPacket.BOUNDARY_SOLO | nextStreamMessage());
    }

    /** Releases a buffer of the stream that was read to its end; the tail is done with once it is read. */
    private void release(ByteBuf done) {
        if (done == tail) {
            tail = null;
        }
        done.release();
    }

    private int nextStreamMessage() {
        int number = nextMessage;
        nextMessage = nextMessage == UdtPacket.MESSAGE_NUMBER_MASK ? 1 : nextMessage + 1;
        return number;
    }

    /**
     * A cumulative acknowledgement: everything below {@code ack} arrived.
     *
     * @return payload bytes newly acknowledged
     */
    long onAck(long ack) {
        long bytes = 0;
        while (unacked.base() < ack) {
            Block b = unacked.pollBase();
            bytes += b.payload.readableBytes();
            b.payload.release();
        }
        unackedBytes -= bytes;
        loss.removeBelow(ack);
        return bytes;
    }

    /**
     * Adds a reported loss, clipped to what is sent and unacknowledged.
     *
     * @return the counts newly in the loss list
     */
    long onLoss(long first, long last) {
        long from = Math.max(first, unacked.base());
        long to = Math.min(last, next - 1);
        return from <= to ? loss.add(from, to, 0) : 0;
    }

    /** A retransmission timeout: with nothing in the loss list, everything unacknowledged is lost. */
    void onExpiry() {
        if (hasUnacked() && loss.isEmpty()) {
            loss.add(unacked.base(), next - 1, 0);
        }
    }

    boolean hasUnacked() {
        return next > unacked.base();
    }

    /** Whether everything written is sent and acknowledged. */
    boolean isDrained() {
        return pendingBytes == 0 && !hasUnacked();
    }

    /** Payload bytes written and not yet acknowledged. */
    long bufferedBytes() {
        return pendingBytes + unackedBytes;
    }

    long pendingBytes() {
        return pendingBytes;
    }

    long unackedBytes() {
        return unackedBytes;
    }

    long lastAck() {
        return unacked.base();
    }

    long next() {
        return next;
    }

    int flowWindow() {
        return flowWindow;
    }

    void flowWindow(int packets) {
        flowWindow = Math.max(2, packets);
    }

    long packetsSent() {
        return packetsSent;
    }

    long bytesSent() {
        return bytesSent;
    }

    long packetsResent() {
        return packetsResent;
    }

    long lossSize() {
        return loss.size();
    }

    /** Releases every buffer held. */
    void releaseAll() {
        for (ByteBuf b; (b = stream.poll()) != null; ) {
            b.release();
        }
        tail = null;
        for (Block b; (b = messages.poll()) != null; ) {
            b.payload.release();
        }
        while (unacked.base() < next) {
            Block b = unacked.pollBase();
            if (b != null) {
                b.payload.release();
            }
        }
        pendingBytes = 0;
        unackedBytes = 0;
    }
}
