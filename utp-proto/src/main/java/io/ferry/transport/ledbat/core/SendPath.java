package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.cc.CongestionControl;
import io.ferry.transport.ledbat.cc.Pacer;
import io.ferry.transport.ledbat.wire.PacketReader;
import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.PacketWriter;
import io.ferry.transport.ledbat.wire.SelectiveAckBitmap;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The sending half of a {@link UtpConnection}: the send buffer and its writability, this side's sequence
 * numbers, the peer's window, and what goes on the wire when — new data within the congestion and peer
 * windows and the pacer, repairs, zero-window probes (persist timer), tail-loss probes (RFC 8985, 7), the
 * FIN, acknowledgements and RESETs. It applies the peer's acknowledgements through {@link LossRecovery}.
 * The connection decides whether sending is allowed ({@code open}: connected and the peer confirmed).
 */
final class SendPath {

    private static final long NONE = Long.MAX_VALUE;

    private final UtpConfig config;
    private final ByteBufAllocator alloc;
    private final ConnectionOutput out;
    private final CongestionControl cc;
    private final Pacer pacer;
    private final RttEstimator rtt;
    private final AckScheduler acks;
    private final OutstandingPackets outstanding;
    private final SendQueue sendQueue = new SendQueue();
    private final InboundStream inbound;
    private final SelectiveAckBitmap sack = new SelectiveAckBitmap();
    private final ConnectionStats stats;
    private final Timestamps timestamps;
    /** When the pacer lets the next packet go, NONE when nothing waits for it. */
    private long pacingDeadline = NONE;
    /** The zero-window probe's deadline, NONE unless the peer's window is closed. */
    private long persistDeadline = NONE;
    private final LossRecovery recovery;
    private final ConnectionIds ids;
    private final int maxPayload;

    private int seqNr;
    private long peerWindow;
    /** The send buffer's current size: starts at the configured one, grows with the windows (growSendBuffer). */
    private long sendBufferLimit;
    /** The last attempt to send stopped at the pacer with data waiting ({@link CongestionControl#onPacerHeld}). */
    private boolean heldByPacer;
    private long lastAdvertisedWindow;
    private boolean writable = true;
    private boolean outputShutdown;
    private boolean finSent;
    private int finSeq;
    private boolean finAcked;
    /** Application bytes taken by {@link #write}, and those of them the peer acknowledged cumulatively. */
    private long bytesWritten;
    private long bytesAcknowledged;
    private boolean probeDue;
    private long persistIntervalNanos;
    private long lastSendNanos;

    SendPath(UtpConfig config, ConnectionOutput out, CongestionControl cc, RttEstimator rtt, AckScheduler acks,
             OutstandingPackets outstanding, InboundStream inbound, ConnectionStats stats,
             LossRecovery recovery, Timestamps timestamps, ConnectionIds ids, long nowNanos) {
        this.config = config;
        this.alloc = config.allocator();
        this.out = out;
        this.cc = cc;
        this.pacer = new Pacer(2 * config.packetSize());
        this.rtt = rtt;
        this.acks = acks;
        this.outstanding = outstanding;
        this.inbound = inbound;
        this.stats = stats;
        this.recovery = recovery;
        this.timestamps = timestamps;
        this.ids = ids;
        this.maxPayload = config.maxPayloadSize();
        this.peerWindow = config.packetSize();
        this.sendBufferLimit = config.sendBufferSize();
        this.lastSendNanos = nowNanos;
    }

    /** This side's first sequence number, and for an acceptor the window its peer's SYN advertised. */
    void start(int initialSeqNr, long peerWindowBytes) {
        seqNr = initialSeqNr & UtpWire.SEQ_MASK;
        if (peerWindowBytes >= 0) {
            peerWindow = peerWindowBytes;
        }
    }

    // ------------------------------------------------------------------ the application's side

    /** Takes what the send buffer has room for; see {@link UtpConnection#write}. */
    int write(ByteBuf data) {
        int n = (int) Math.min(data.readableBytes(), sendBufferSpace());
        if (n > 0) {
            sendQueue.add(data, n);
            bytesWritten += n;
        }
        updateWritability(false);
        return n;
    }

    /** Makes every byte written so far eligible for sending. */
    void flush() {
        sendQueue.flush();
    }

    /** A FIN follows the bytes written so far; false if the output was shut down already. */
    boolean shutdownOutput() {
        if (outputShutdown) {
            return false;
        }
        outputShutdown = true;
        sendQueue.flush();
        return true;
    }

    /** Raises {@link UtpConnection#WRITABILITY_CHANGED} when the send buffer fills or drains to half. */
    void updateWritability(boolean closed) {
        if (closed) {
            return;
        }
        if (writable && sendBufferSpace() == 0) {
            writable = false;
            out.event(UtpConnection.WRITABILITY_CHANGED);
        } else if (!writable && sendBuffered() <= sendBufferLimit / 2) {
            writable = true;
            out.event(UtpConnection.WRITABILITY_CHANGED);
        }
    }

    // ------------------------------------------------------------------ acknowledgements

    /**
     * Applies the acknowledgement of {@code reader}'s packet, whose timestamps gave {@code timestampRttNanos}
     * ({@link Timestamps#rttNanos}). Returns false if it acknowledges something never sent, in which case
     * the packet is ignored entirely.
     */
    boolean onAck(PacketReader reader, PacketType type, long timestampRttNanos, long nowNanos) {
        int pktAck = reader.ackNr();
        if (UtpWire.seqDiff(pktAck, UtpWire.seqAdd(seqNr, -1)) > 0) {
            return false;
        }
        peerWindow = reader.windowSize();
        if (peerWindow - outstanding.bytesInFlight() >= maxPayload) {
            // the window is open again: stop probing and forget the probe back-off
            persistDeadline = NONE;
            persistIntervalNanos = 0;
            probeDue = false;
        }
        if (outstanding.isEmpty()) {
            return true;
        }
        LossRecovery.AckOutcome ack = recovery.onAck(reader, seqNr,
                type == PacketType.STATE && reader.payloadLength() == 0, timestampRttNanos, heldByPacer, nowNanos);
        bytesAcknowledged += ack.payloadAcked;
        if (finSent && !finAcked && !outstanding.contains(finSeq)) {
            finAcked = true;
        }
        if (ack.cwndAfterAck >= 0) {
            growSendBuffer(ack.cwndAfterAck);
        }
        return true;
    }

    /**
     * Lets the send buffer hold twice what the windows let fly (Linux sizes a TCP send buffer the same
     * way): a window in flight and a window's worth written behind it, so that the application's next
     * write is there when the acknowledgements come. Bounded by {@link UtpConfig#sendBufferMax()};
     * never shrinks.
     */
    private void growSendBuffer(long cwndBytes) {
        long max = config.sendBufferMax();
        if (sendBufferLimit >= max) {
            return;
        }
        long wanted = 2 * Math.min(cwndBytes, peerWindow);
        if (wanted > sendBufferLimit) {
            sendBufferLimit = Math.min(max, wanted);
        }
    }

    /**
     * Whether {@code ackNr} acknowledges something this side sent and has not yet seen acknowledged
     * (from the last cumulatively acknowledged packet to the next sequence number, which our STATE
     * packets carry): what a peer's RESET must carry, and what a blind forger must guess.
     */
    boolean plausibleAck(int ackNr) {
        return UtpWire.seqDiff(ackNr, lowestUnacknowledged()) >= 0 && UtpWire.seqDiff(ackNr, seqNr) <= 0;
    }

    /** The acknowledgement number that acknowledges nothing new: one before the oldest packet outstanding. */
    int lowestUnacknowledged() {
        return UtpWire.seqAdd(outstanding.isEmpty() ? seqNr : outstanding.firstSeq(), -1);
    }

    /** Whether nothing but our FIN is left unacknowledged (or nothing at all). */
    boolean onlyFinUnacked() {
        return outstanding.isEmpty() || (outstanding.count() == 1 && outstanding.firstSeq() == finSeq);
    }

    // ------------------------------------------------------------------ sending

    /** Sends what the windows and the pacer allow: repairs first, then new data, then the FIN. */
    void trySend(boolean open, long nowNanos) {
        if (!open) {
            return;
        }
        pacingDeadline = NONE;
        heldByPacer = false;
        // the pacing rate changes only with the window and the RTT: once per send opportunity, not per packet
        long rate = cc.pacingRateBytesPerSecond(rtt.srttNanos());
        boolean sentNew = false;
        while (true) {
            int resendSeq = outstanding.firstLost();
            boolean resend = resendSeq >= 0;
            boolean fin = false;
            boolean probe = false;
            int payload;
            if (resend) {
                payload = outstanding.payload(resendSeq);
            } else if (sendQueue.flushedBytes() > 0) {
                payload = (int) Math.min(maxPayload, sendQueue.flushedBytes());
            } else if (outputShutdown && !finSent && sendQueue.queuedBytes() == 0) {
                payload = 0;
                fin = true;
            } else {
                break;
            }
            if (!resend && outstanding.isFull()) {
                break;
            }
            if (resend && recovery.takeFastRetransmit()) {
                // the first retransmission of a loss episode goes out at once, whatever the window
                transmit(resendSeq, nowNanos, rate);
                continue;
            }
            long flight = outstanding.bytesInFlight();
            if (flight > 0 && flight + payload > cc.cwndBytes()) {
                if (resend && recovery.takeDepartureCredit()) {
                    // a packet acknowledged without progress left the network: repair a hole in its place
                    transmit(resendSeq, nowNanos, rate);
                    continue;
                }
                break;
            }
            if (!resend && payload > 0) {
                long room = peerWindow - flight;
                if (room < payload) {
                    if (flight == 0 && room > 0) {
                        payload = (int) room;
                    } else if (probeDue && outstanding.isEmpty()) {
                        payload = 0;
                        probe = true;
                    } else {
                        armPersistTimer(nowNanos);
                        break;
                    }
                }
            }
            if (!pacer.canSend(nowNanos, rate)) {
                pacingDeadline = pacer.nextSendTimeNanos(nowNanos, rate);
                heldByPacer = true;
                break;
            }
            if (resend) {
                transmit(resendSeq, nowNanos, rate);
            } else {
                if (probe) {
                    probeDue = false;
                }
                newPacket(payload, fin, nowNanos, rate);
                sentNew = true;
            }
        }
        if (sentNew) {
            armTailLossProbe(true, nowNanos); // RFC 8985 7.2: re-armed by the newest send, once per burst
        }
    }

    /** The peer's window is closed: probe it after an RTO, backing off to the maximum RTO. */
    private void armPersistTimer(long nowNanos) {
        if (!outstanding.isEmpty() || persistDeadline != NONE) {
            return;
        }
        persistIntervalNanos = persistIntervalNanos == 0
                ? rtt.rtoNanos()
                : Math.min(persistIntervalNanos * 2, config.maxRtoNanos());
        persistDeadline = nowNanos + persistIntervalNanos;
    }

    /** The persist timer fired: the next send may probe the closed window with one empty packet. */
    void onPersistTimer() {
        persistDeadline = NONE;
        probeDue = true;
    }

    void sendSyn(long nowNanos) {
        outstanding.add(seqNr, UtpWire.HEADER_SIZE, 0);
        PacketWriter.writeHeaderAt(outstanding.buffer(seqNr), outstanding.offset(seqNr), PacketType.SYN,
                UtpWire.EXTENSION_NONE, ids.recvId(), 0, 0, 0, seqNr, 0);
        int seq = seqNr;
        seqNr = UtpWire.seqAdd(seqNr, 1);
        transmit(seq, nowNanos);
    }

    private void sendNew(int payload, boolean fin, long nowNanos, boolean open) {
        newPacket(payload, fin, nowNanos, cc.pacingRateBytesPerSecond(rtt.srttNanos()));
        armTailLossProbe(open, nowNanos);
    }

    /** Packetizes the next {@code payload} bytes (or the FIN) and puts the packet on the wire. */
    private void newPacket(int payload, boolean fin, long nowNanos, long rate) {
        outstanding.add(seqNr, UtpWire.HEADER_SIZE + payload, payload);
        ByteBuf slab = outstanding.buffer(seqNr);
        int at = outstanding.offset(seqNr);
        PacketWriter.writeHeaderAt(slab, at, fin ? PacketType.FIN : PacketType.DATA, UtpWire.EXTENSION_NONE,
                ids.sendId(), 0, 0, 0, seqNr, inbound.ackNr());
        if (payload > 0) {
            sendQueue.transferTo(slab, at + UtpWire.HEADER_SIZE, payload);
        }
        if (fin) {
            finSent = true;
            finSeq = seqNr;
        }
        int seq = seqNr;
        seqNr = UtpWire.seqAdd(seqNr, 1);
        transmit(seq, nowNanos, rate);
    }

    /** Puts stored packet {@code seq} on the wire, refreshing its timestamps, window and ack. */
    void transmit(int seq, long nowNanos) {
        transmit(seq, nowNanos, cc.pacingRateBytesPerSecond(rtt.srttNanos()));
    }

    /** As {@link #transmit(int, long)}, at pacing {@code rate} (bytes per second) computed by the caller. */
    private void transmit(int seq, long nowNanos, long rate) {
        ByteBuf slab = outstanding.buffer(seq);
        int at = outstanding.offset(seq);
        long window = inbound.window();
        PacketWriter.refreshAt(slab, at, UtpWire.micros32(nowNanos), timestamps.replyMicros(), window, inbound.ackNr());
        int payload = outstanding.payload(seq);
        boolean retransmission = outstanding.transmissions(seq) > 0;
        if (retransmission) {
            stats.retransmissions++;
            stats.payloadBytesResent += payload;
        }
        cc.onPacketSent(payload, retransmission, outstanding.bytesInFlight(), nowNanos);
        outstanding.onSent(seq, nowNanos, recovery.nextSendOrder());
        stats.packetsSent++;
        stats.payloadBytesSent += payload;
        lastAdvertisedWindow = window;
        lastSendNanos = nowNanos;
        if (!inbound.hasGap()) {
            acks.onAckSent();
        }
        pacer.onSent(UtpWire.HEADER_SIZE + payload, nowNanos, rate);
        recovery.onTransmitted(nowNanos);
        // the stored packet's place, no buffer of its own: the output holds the slab until the driver took
        // the packet (PacketBuffers); a retransmission refreshes the same bytes anyway
        out.sendPart(slab, at, outstanding.size(seq));
    }

    /** An acknowledgement (with selective ACKs when something is missing); also the handshake's answer. */
    void sendState(long nowNanos) {
        inbound.fillSelectiveAck(sack);
        int sackLength = sack.encodedLength();
        int size = UtpWire.HEADER_SIZE + (sackLength > 0 ? UtpWire.EXTENSION_HEADER_SIZE + sackLength : 0);
        ByteBuf p = alloc.ioBuffer(size);
        long window = inbound.window();
        PacketWriter.writeHeader(p, PacketType.STATE,
                sackLength > 0 ? UtpWire.EXTENSION_SELECTIVE_ACK : UtpWire.EXTENSION_NONE,
                ids.sendId(), UtpWire.micros32(nowNanos), timestamps.replyMicros(), window, seqNr, inbound.ackNr());
        if (sackLength > 0) {
            PacketWriter.writeSelectiveAck(p, UtpWire.EXTENSION_NONE, sack);
        }
        lastAdvertisedWindow = window;
        lastSendNanos = nowNanos;
        acks.onAckSent();
        stats.packetsSent++;
        out.send(p);
    }

    void sendReset(long nowNanos) {
        ByteBuf p = alloc.ioBuffer(UtpWire.HEADER_SIZE);
        PacketWriter.writeHeader(p, PacketType.RESET, UtpWire.EXTENSION_NONE, ids.sendId(), UtpWire.micros32(nowNanos),
                timestamps.replyMicros(), 0, seqNr, inbound.ackNr());
        stats.packetsSent++;
        out.send(p);
    }

    /**
     * Tail-loss probe (RFC 8985, section 7): when nothing was acknowledged for about two round trips
     * while packets are in flight, send one packet - new data if there is any, else the last packet
     * again - without touching the window. Its acknowledgement reveals the losses before it (or just
     * repeats lost ACKs), so a lost tail, or lost ACKs when the window is a couple of packets, costs
     * two round trips instead of a retransmission timeout and its collapse of the window. A known
     * lost packet still waiting for room in the window goes first. Unlike RFC 8985, up to
     * {@link LossRecovery#MAX_TAIL_PROBES} probes may precede the timeout, and probing resumes after a
     * timeout's retransmission (as QUIC's probe timeouts do): with the 500 ms minimum RTO a timeout
     * costs ten 50 ms round trips, and at 25 % loss each way one probe and its ACK fail together nearly
     * half the time. Probes are single packets, at most a few per timeout period, sent only while no
     * ACK arrives; a path that stays silent still meets the timeout, its collapse of the window and its
     * back-off.
     */
    void onTailLossProbe(boolean open, long nowNanos) {
        if (!open || outstanding.packetsInFlight() == 0) {
            recovery.stopTailLossProbe();
            return;
        }
        int lost = recovery.onTailLossProbe();
        if (lost >= 0) {
            // a known hole waits for room in the window: repairing it is the most useful probe
            transmit(lost, nowNanos);
            armTailLossProbe(open, nowNanos);
            return;
        }
        long flight = outstanding.bytesInFlight();
        if (!outstanding.isFull()) {
            if (sendQueue.flushedBytes() > 0) {
                int payload = (int) Math.min(maxPayload, sendQueue.flushedBytes());
                if (peerWindow - flight >= payload) {
                    sendNew(payload, false, nowNanos, open);
                    return;
                }
            } else if (outputShutdown && !finSent && sendQueue.queuedBytes() == 0) {
                sendNew(0, true, nowNanos, open);
                return;
            }
        }
        int seq = recovery.lastInFlightForProbe();
        if (seq >= 0) {
            transmit(seq, nowNanos);
            armTailLossProbe(open, nowNanos);
        }
    }

    void armTailLossProbe(boolean open, long nowNanos) {
        recovery.armTailLossProbe(open, nowNanos);
    }

    /** Drops every buffer: the send queue and the packets outstanding. */
    void releaseAll() {
        outstanding.releaseAll();
        sendQueue.releaseAll();
    }

    // ------------------------------------------------------------------ queries

    int seqNr() {
        return seqNr;
    }

    long lastSendNanos() {
        return lastSendNanos;
    }

    long lastAdvertisedWindow() {
        return lastAdvertisedWindow;
    }

    boolean isWritable() {
        return writable && !outputShutdown;
    }

    void notWritable() {
        writable = false;
    }

    boolean isOutputShutdown() {
        return outputShutdown;
    }

    boolean isFinSent() {
        return finSent;
    }

    boolean isFinAcked() {
        return finAcked;
    }

    long sendBufferSpace() {
        return Math.max(0, sendBufferLimit - sendBuffered());
    }

    long sendBufferLimit() {
        return sendBufferLimit;
    }

    long peerWindow() {
        return peerWindow;
    }

    long unacknowledgedBytes() {
        return bytesWritten - bytesAcknowledged;
    }

    private long sendBuffered() {
        return sendQueue.queuedBytes() + outstanding.unackedPayloadBytes();
    }

    /** When the pacer lets the next packet go, NONE when nothing waits for it. */
    long pacingDeadline() {
        return pacingDeadline;
    }

    /** When the closed window is probed, NONE unless it is closed. */
    long persistDeadline() {
        return persistDeadline;
    }
}
