package io.ferry.transport.udt.proto.core;

import io.ferry.transport.udt.proto.wire.LossList;
import io.ferry.transport.udt.proto.wire.SeqNumbers;
import io.ferry.transport.udt.proto.wire.UdtPacket;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;

import java.util.Map;

/**
 * The receiving half of a UDT connection (draft-gg-udt-03 section 6.2): the reorder buffer, the loss
 * list and the acknowledgements.
 *
 * <ul>
 *   <li>A gap in the sequence is reported at once by a NAK, and again by the periodic NAK after
 *       k round trips, k starting at 2 and growing by one per report (the paper's rule; UDT4 4.11 has
 *       it commented out and waits for the sender's timeout instead).</li>
 *   <li>A full ACK every SYN (10 ms) carries the next expected sequence number, RTT, RTT variance, the
 *       free receive buffer, and (at most once per SYN) the arrival rate and link capacity; it is sent
 *       only when it says something the sender has not confirmed by ACK2, as UDT4 does. A light ACK
 *       follows every 64 packets between full ones.</li>
 *   <li>A stream delivers each in-order payload as it completes; a message socket delivers a message
 *       once its packets from first to last are all there, and skips what a drop request removed.</li>
 * </ul>
 * Delivered bytes count against the receive buffer until the application {@link #consumed consumes}
 * them; a consumption that frees a quarter of the buffer sends a window update at the next ACK.
 */
final class UdtReceiver {
    private static final Object DROPPED = new Object();
    private static final int LIGHT_ACK_PACKETS = 64;
    private static final long SYN_NANOS = UdtConnection.SYN_NANOS;

    private record Piece(ByteBuf payload, int word) {
    }

    private final UdtConnection conn;
    private final int capacity;
    private final int payloadBytes;
    private final boolean messageMode;
    private final SeqRing<Object> buffer;
    private final LossRanges loss = new LossRanges();
    private final AckHistory history = new AckHistory();
    private final ArrivalRates rates = new ArrivalRates();
    private long highest;
    private long acked;
    private long ackAcked;
    private int ackNumber;
    private long lastFullAckNanos = Long.MIN_VALUE / 2;
    private int sinceAck;
    private int lightAcks = 1;
    private long unconsumedBytes;
    private boolean windowUpdate;
    private long packetsReceived;
    private long duplicates;
    private long overflows;

    UdtReceiver(UdtConnection conn, UdtConfig config, int payloadBytes, long peerInitialSeq) {
        this.conn = conn;
        this.capacity = config.receiveBufferPackets();
        this.payloadBytes = payloadBytes;
        this.messageMode = config.messageMode();
        this.buffer = new SeqRing<>(peerInitialSeq, 64, capacity);
        this.highest = peerInitialSeq - 1;
        this.acked = peerInitialSeq;
        this.ackAcked = peerInitialSeq;
    }

    /** A data packet; the caller keeps ownership of {@code packet}. */
    void onData(ByteBuf packet, long nowNanos) {
        int wire = UdtPacket.sequence(packet);
        long seq = SeqNumbers.widen(wire, highest);
        rates.onData(wire, nowNanos);
        if (seq < buffer.base() || buffer.get(seq) != null) {
            duplicates++;
            return;
        }
        if (!buffer.fits(seq) || seq - buffer.base() >= capacity - unconsumedPackets()) {
            overflows++; // no room: what the application has not read fills the buffer (flow control, as UDT4's)
            windowUpdate = true; // answer the probe: the sender learns the window and that we are alive
            return;
        }
        if (seq > highest + 1) {
            loss.add(highest + 1, seq - 1, nowNanos);
            sendNak(highest + 1, seq - 1);
        } else if (seq <= highest) {
            loss.remove(seq);
        }
        highest = Math.max(highest, seq);
        int len = UdtPacket.bodyLength(packet);
        buffer.put(seq, new Piece(packet.retainedSlice(packet.readerIndex() + UdtPacket.HEADER_BYTES, len), UdtPacket.secondWord(packet)));
        packetsReceived++;
        if (++sinceAck >= LIGHT_ACK_PACKETS * lightAcks) {
            lightAcks++;
            sendLightAck();
        }
        deliver();
    }

    private void deliver() {
        if (!messageMode) {
            for (Object o; (o = buffer.get(buffer.base())) != null; ) {
                buffer.pollBase();
                if (o instanceof Piece p) {
                    unconsumedBytes += p.payload.readableBytes();
                    conn.deliver(p.payload);
                }
            }
            return;
        }
        for (Object o; (o = buffer.get(buffer.base())) != null; ) {
            if (o == DROPPED) {
                buffer.pollBase();
                continue;
            }
            Piece first = (Piece) o;
            if ((first.word & UdtPacket.BOUNDARY_FIRST) == 0) {
                buffer.pollBase();
                first.payload.release();
                continue;
            }
            int count = 0;
            boolean complete = false;
            for (long s = buffer.base(); buffer.get(s) instanceof Piece p; s++) {
                count++;
                if ((p.word & UdtPacket.BOUNDARY_LAST) != 0) {
                    complete = true;
                    break;
                }
            }
            if (!complete) {
                return;
            }
            CompositeByteBuf message = first.payload.alloc().compositeBuffer(count);
            for (int i = 0; i < count; i++) {
                message.addComponent(true, ((Piece) buffer.pollBase()).payload);
            }
            unconsumedBytes += message.readableBytes();
            conn.deliver(message);
        }
    }

    /** A message drop request: the sender gave up the message in {@code [first, last]}. */
    void onDrop(ByteBuf packet) {
        if (!messageMode || UdtPacket.bodyLength(packet) < 8) {
            return;
        }
        long first = SeqNumbers.widen(UdtPacket.bodyWord(packet, 0), highest);
        long last = SeqNumbers.widen(UdtPacket.bodyWord(packet, 1), first);
        if (last < first || last - first >= capacity) {
            return;
        }
        loss.removeRange(first, last);
        for (long s = Math.max(first, buffer.base()); s <= last && buffer.fits(s); s++) {
            if (buffer.get(s) instanceof Piece p) {
                p.payload.release();
            }
            buffer.put(s, DROPPED);
        }
        highest = Math.max(highest, last);
        deliver();
    }

    /** The application consumed {@code bytes} of what was delivered. */
    void consumed(long bytes) {
        long before = availablePackets();
        unconsumedBytes = Math.max(0, unconsumedBytes - bytes);
        if (before < capacity / 4 && availablePackets() >= capacity / 4) {
            windowUpdate = true;
        }
    }

    private long unconsumedPackets() {
        return (unconsumedBytes + payloadBytes - 1) / payloadBytes;
    }

    private int availablePackets() {
        long held = highest + 1 - buffer.base() + unconsumedPackets();
        return (int) Math.max(2, capacity - held);
    }

    private long ackPoint() {
        return loss.isEmpty() ? highest + 1 : loss.first();
    }

    /** Whether the ACK timer has work: something received that the sender has not confirmed. */
    boolean wantsAckTimer() {
        return ackPoint() != ackAcked || windowUpdate;
    }

    /** The ACK timer: a full ACK if there is news, as UDT4's {@code sendCtrl(2)} decides. */
    void onAckTimer(long nowNanos, int rttMicros, int rttVarMicros) {
        long ack = ackPoint();
        boolean force = windowUpdate;
        windowUpdate = false;
        if (ack == ackAcked && !force) {
            return;
        }
        if (ack > acked) {
            acked = ack;
        } else if (ack < acked || (!force && nowNanos - lastFullAckNanos < (rttMicros + 4L * rttVarMicros) * 1000L)) {
            return;
        }
        if (acked <= ackAcked && !force) {
            return;
        }
        ackNumber = ackNumber == SeqNumbers.MAX ? 1 : ackNumber + 1;
        boolean withRates = nowNanos - lastFullAckNanos >= SYN_NANOS;
        ByteBuf p = conn.control(UdtPacket.ACK, ackNumber, withRates ? 24 : 16);
        p.writeInt(SeqNumbers.wire(acked));
        p.writeInt(rttMicros);
        p.writeInt(rttVarMicros);
        p.writeInt(availablePackets());
        if (withRates) {
            p.writeInt(rates.packetsPerSecond());
            p.writeInt(rates.capacityPacketsPerSecond());
            lastFullAckNanos = nowNanos;
        }
        history.store(ackNumber, acked, nowNanos);
        conn.transmit(p);
        sinceAck = 0;
        lightAcks = 1;
    }

    /** Before a shutdown: a full ACK of whatever arrived since the last one, so the peer knows it was read. */
    void finalAck(long nowNanos, int rttMicros, int rttVarMicros) {
        if (ackPoint() > acked) {
            windowUpdate = true;
            onAckTimer(nowNanos, rttMicros, rttVarMicros);
        }
    }

    private void sendLightAck() {
        long ack = ackPoint();
        if (ack == ackAcked) {
            return;
        }
        ByteBuf p = conn.control(UdtPacket.ACK, 0, 4);
        p.writeInt(SeqNumbers.wire(ack));
        conn.transmit(p);
    }

    /**
     * An ACK2: the sender confirmed ACK {@code ackNumber}.
     *
     * @return the round-trip sample in microseconds, or -1 if the ACK is not known
     */
    long onAck2(int ackNumber, long nowNanos) {
        int at = history.find(ackNumber);
        if (at < 0) {
            return -1;
        }
        ackAcked = Math.max(ackAcked, history.ackedSeq(at));
        return Math.max(1, (nowNanos - history.sentNanos(at)) / 1000);
    }

    private void sendNak(long first, long last) {
        ByteBuf p = conn.control(UdtPacket.NAK, 0, LossList.rangeBytes(first, last));
        LossList.writeRange(p, SeqNumbers.wire(first), SeqNumbers.wire(last));
        conn.transmit(p);
    }

    /** Whether the periodic NAK has losses to watch. */
    boolean hasLoss() {
        return !loss.isEmpty();
    }

    /** The periodic NAK: reports again every loss last reported (k + 2) round trips ago, k its earlier repeats. */
    void onNakTimer(long nowNanos, long rttNanos) {
        ByteBuf p = null;
        for (Map.Entry<Long, LossRanges.Range> e : loss.entries()) {
            LossRanges.Range r = e.getValue();
            if (nowNanos - r.reportedNanos < (r.reports + 2L) * rttNanos) {
                continue;
            }
            if (p == null) {
                p = conn.control(UdtPacket.NAK, 0, Math.min(payloadBytes, 8 * 64));
            }
            if (p.readableBytes() - UdtPacket.HEADER_BYTES + 8 > payloadBytes) {
                break;
            }
            LossList.writeRange(p, SeqNumbers.wire(e.getKey()), SeqNumbers.wire(r.last));
            r.reports++;
            r.reportedNanos = nowNanos;
        }
        if (p != null) {
            conn.transmit(p);
        }
    }

    long unconsumedBytes() {
        return unconsumedBytes;
    }

    long packetsReceived() {
        return packetsReceived;
    }

    long duplicates() {
        return duplicates;
    }

    /** Packets dropped because the buffer was full of what the application had not consumed. */
    long overflows() {
        return overflows;
    }

    long lossSize() {
        return loss.size();
    }

    /** Releases every payload held. */
    void releaseAll() {
        for (long s = buffer.base(); s <= highest; s++) {
            if (buffer.get(s) instanceof Piece p) {
                p.payload.release();
            }
        }
        buffer.clear();
    }
}
