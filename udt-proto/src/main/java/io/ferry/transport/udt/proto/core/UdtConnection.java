package io.ferry.transport.udt.proto.core;

import io.ferry.transport.ledbat.cc.CongestionControl;
import io.ferry.transport.ledbat.cc.CongestionParameters;
import io.ferry.transport.ledbat.cc.Pacer;
import io.ferry.transport.ledbat.core.AbstractEngineConnection;
import io.ferry.transport.udt.proto.cc.UdtRateFeedback;
import io.ferry.transport.udt.proto.wire.Handshake;
import io.ferry.transport.udt.proto.wire.SeqNumbers;
import io.ferry.transport.udt.proto.wire.UdtPacket;
import io.netty.buffer.ByteBuf;

import java.net.InetAddress;

/**
 * One UDT4 connection without I/O (draft-gg-udt-03; wire-compatible with UDT4 4.11): the driver hands
 * it datagrams ({@link #onDatagram}), timer expiries ({@link #onTimer}) and application calls, each
 * with the time, and {@link #collect collects} what it produced. It never reads a clock.
 *
 * <p>Three ways in: {@link #connect} (a client: request, the listener's cookie, request with the
 * cookie, response), {@link #accept} (a listener's side once {@link UdtListener} checked the cookie)
 * and {@link #rendezvous} (both sides request, answer -1, and the first connected confirms with -2).
 * Once connected the {@link UdtSender} and {@link UdtReceiver} halves do the work, {@link UdtFeedback}
 * takes the peer's ACKs and NAKs into the sender and the rate control, and {@link UdtRtt} keeps the
 * round-trip estimate; this class owns the phase and every timer: ACK (SYN, 10 ms), periodic NAK, EXP
 * ({@link UdtExpiry}), the graceful close's ({@link UdtClosing}), keep-alive and the pacer.
 */
public final class UdtConnection extends AbstractEngineConnection {
    static final long SYN_NANOS = 10_000_000L;
    private static final long MIN_NAK_INTERVAL_NANOS = 20_000_000L;
    /**
     * A connected side that has sent nothing for this long sends a keep-alive, whatever its EXP timer says.
     * Every packet heard pushes the EXP timer back, so a side whose estimate of {@code RTT + 4 RTTVar}
     * exceeds the spacing of its peer's keep-alives (an RTT inflated by a starved CPU) never expires and
     * never speaks, and the peer, hearing nothing through its own expiries, declares it dead (200 clients
     * under a CPU burner lost 10 to 15 so, after 10 s). UDT4 survives this only by waiting for 16
     * expiries; Ferry waits for 4, so a live side is heard at least once a second instead. A keep-alive
     * heard counts for the peer's life, not for the EXP timer: frequent ones would otherwise push it back
     * past a lost tail's resend for ever.
     */
    static final long KEEP_ALIVE_NANOS = 1_000_000_000L;

    /** Where a connection is in its life. */
    public enum Phase {
        /** Handshaking. */
        CONNECTING,
        /** Moving data. */
        CONNECTED,
        /** Closed by the application; sending what is left before the shutdown. */
        CLOSING,
        /** Done; nothing more is sent or received. */
        CLOSED
    }

    private final UdtConfig config;
    private final int socketId;
    private final long startNanos;
    private Phase phase = Phase.CONNECTING;
    private final UdtHandshaker setup;
    private int peerId;
    private int payloadBytes;
    private int negotiatedMss;
    private UdtSender sender;
    private UdtReceiver receiver;
    private CongestionControl cc;
    private Pacer pacer;
    private final UdtRtt rtt = new UdtRtt();
    private UdtFeedback feedback;
    private long nextAckNanos = Long.MAX_VALUE;
    private long nextNakNanos = Long.MAX_VALUE;
    private final UdtExpiry expiry;
    private long eventNanos;
    private long sendAtNanos = Long.MAX_VALUE;
    private long lastSentNanos;
    private final UdtClosing linger = new UdtClosing();
    private boolean writable = true;
    private boolean endOfStream;
    private long unacknowledgedAtShutdown;
    private long maxBandwidth = -1;
    private long lastPacingRate;

    private UdtConnection(UdtConfig config, int socketId, UdtHandshaker setup, long nowNanos) {
        this.config = config;
        this.socketId = socketId;
        this.setup = setup;
        this.startNanos = nowNanos;
        this.expiry = new UdtExpiry(nowNanos);
        this.eventNanos = nowNanos;
        this.lastSentNanos = nowNanos;
    }

    /**
     * Starts a client's handshake towards a listener; the first request is ready to collect.
     *
     * @param socketId    this side's socket id (non-zero)
     * @param initialSeq  the initial sequence number, random in [0, 2^31)
     * @param peerAddress the listener's address, which the handshake carries
     */
    public static UdtConnection connect(UdtConfig config, int socketId, int initialSeq, InetAddress peerAddress, long nowNanos) {
        UdtConnection c = new UdtConnection(config, socketId, UdtHandshaker.client(config, socketId, initialSeq, peerAddress, nowNanos), nowNanos);
        c.sendHandshake(0, nowNanos);
        return c;
    }

    /** Starts a rendezvous with a peer that does the same towards this side's address. */
    public static UdtConnection rendezvous(UdtConfig config, int socketId, int initialSeq, InetAddress peerAddress, long nowNanos) {
        UdtConnection c = new UdtConnection(config, socketId, UdtHandshaker.rendezvous(config, socketId, initialSeq, peerAddress, nowNanos), nowNanos);
        c.sendHandshake(0, nowNanos);
        return c;
    }

    /**
     * Accepts a client's request that carried a valid cookie: the connection is connected and its
     * response is ready to collect. Both directions start at the client's initial sequence number.
     *
     * @param request     the client's handshake
     * @param peerAddress the client's address, which the response carries
     */
    public static UdtConnection accept(UdtConfig config, int socketId, Handshake request, InetAddress peerAddress, long nowNanos) {
        UdtHandshaker setup = UdtHandshaker.server(config, socketId, request, peerAddress, nowNanos);
        UdtConnection c = new UdtConnection(config, socketId, setup, nowNanos);
        c.established(request.socketId(), setup.ours().mss(), request.flowWindow(), request.initialSeq(), request.initialSeq(), nowNanos);
        c.sendHandshake(c.peerId, nowNanos);
        return c;
    }

    private void established(int peer, int mss, int peerFlowWindow, int sendIsn, int receiveIsn, long nowNanos) {
        peerId = peer;
        negotiatedMss = Math.min(mss, config.mss());
        payloadBytes = config.withMss(negotiatedMss).payloadBytes();
        sender = new UdtSender(config, payloadBytes, sendIsn, Math.max(2, peerFlowWindow));
        receiver = new UdtReceiver(this, config, payloadBytes, receiveIsn);
        cc = config.congestionControl().create(new CongestionParameters(payloadBytes, 100_000));
        if (cc instanceof UdtRateFeedback f) {
            f.setMaxWindowPackets(Math.min(config.flowWindowPackets(), Math.max(2, peerFlowWindow)));
        }
        pacer = new Pacer(2 * payloadBytes);
        feedback = new UdtFeedback(this, sender, cc, rtt, expiry);
        phase = Phase.CONNECTED;
        expiry.restart(nowNanos);
        out.event(CONNECTED);
    }

    // ------------------------------------------------------------------------------------------------
    // Input

    /** A datagram from the peer; the caller keeps ownership. */
    public void onDatagram(ByteBuf packet, long nowNanos) {
        if (phase == Phase.CLOSED || packet.readableBytes() < UdtPacket.HEADER_BYTES) {
            return;
        }
        eventNanos = nowNanos;
        // a keep-alive must not push back the EXP timer, which alone resends a lost tail ({@link #KEEP_ALIVE_NANOS})
        expiry.heard(nowNanos, UdtPacket.isControl(packet) && UdtPacket.controlType(packet) == UdtPacket.KEEP_ALIVE);
        if (!UdtPacket.isControl(packet)) {
            if (receiver != null) {
                receiver.onData(packet, nowNanos);
            }
        } else {
            onControl(packet, nowNanos);
        }
        afterEvent(nowNanos);
    }

    private void onControl(ByteBuf p, long nowNanos) {
        int type = UdtPacket.controlType(p);
        if (type == UdtPacket.HANDSHAKE) {
            onHandshake(p, nowNanos);
            return;
        }
        if (phase == Phase.CONNECTING) {
            return;
        }
        switch (type) {
            case UdtPacket.ACK -> feedback.onAck(p, nowNanos);
            case UdtPacket.NAK -> feedback.onNak(p, nowNanos);
            case UdtPacket.ACK2 -> {
                long sample = receiver.onAck2(UdtPacket.secondWord(p), nowNanos);
                if (sample > 0) {
                    rtt.sample(sample);
                }
            }
            case UdtPacket.DROP_REQUEST -> receiver.onDrop(p);
            case UdtPacket.SHUTDOWN -> onShutdown();
            case UdtPacket.ERROR_SIGNAL -> fail(new UdtException("the peer signalled error " + UdtPacket.secondWord(p)));
            default -> {
                // keep-alive, congestion warning, user-defined: the arrival already counted
            }
        }
    }

    private void onHandshake(ByteBuf p, long nowNanos) {
        if (UdtPacket.bodyLength(p) < Handshake.BYTES) {
            return;
        }
        Handshake hs = Handshake.read(p, p.readerIndex() + UdtPacket.HEADER_BYTES, config.ipv6());
        if (phase != Phase.CONNECTING) {
            if (phase == Phase.CONNECTED && setup.answersWhenConnected(hs)) {
                sendHandshake(peerId, nowNanos);
            }
            return;
        }
        switch (setup.whileConnecting(hs, UdtPacket.destination(p))) {
            case IGNORE -> {
            }
            case REFUSED -> fail(new UdtException("the UDT peer refused the connection (version or socket type differ, or it is not accepting)"));
            case SEND -> {
                peerId = setup.destination();
                sendHandshake(peerId, nowNanos);
            }
            case CONNECT -> connectedBy(setup.peer(), nowNanos);
            case CONNECT_AND_SEND -> {
                connectedBy(setup.peer(), nowNanos);
                sendHandshake(peerId, nowNanos);
            }
        }
    }

    private void connectedBy(Handshake peer, long nowNanos) {
        established(peer.socketId(), peer.mss(), peer.flowWindow(), setup.ours().initialSeq(), peer.initialSeq(), nowNanos);
    }

    /**
     * The peer closed. UDT4 closes as soon as its application does, often before its last ACK of our
     * data left, so what is unacknowledged here is not known to be lost: the close is a normal end,
     * and {@link #unacknowledgedAtShutdown} says how much the peer never confirmed.
     */
    private void onShutdown() {
        unacknowledgedAtShutdown = sender.bufferedBytes();
        endOfStream = true;
        out.event(END_OF_STREAM);
        finish(null);
    }

    /**
     * Caps the sending rate, whatever the congestion control says (UDT4's {@code UDT_MAXBW}).
     *
     * @param bytesPerSecond bytes of packets per second, or -1 for no cap
     */
    public void setMaxBandwidth(long bytesPerSecond) {
        maxBandwidth = bytesPerSecond;
    }

    /** Bytes of ours the peer had not acknowledged when its shutdown arrived (0 if it did not shut down). */
    public long unacknowledgedAtShutdown() {
        return unacknowledgedAtShutdown;
    }

    /** A timer the driver armed for {@link #nextDeadlineNanos} expired (early or late calls are harmless). */
    @Override
    public void onTimer(long nowNanos) {
        eventNanos = nowNanos;
        if (phase == Phase.CONNECTING) {
            if (setup.expired(nowNanos)) {
                fail(new UdtException("no UDT answer from the peer within " + config.connectTimeoutNanos() / 1_000_000 + " ms"));
            } else if (setup.resendDue(nowNanos)) {
                sendHandshake(setup.destination(), nowNanos);
            }
            return;
        }
        if (phase == Phase.CLOSED) {
            return;
        }
        if (nowNanos >= nextAckNanos) {
            receiver.onAckTimer(nowNanos, rtt.micros(), rtt.varianceMicros());
            nextAckNanos = Long.MAX_VALUE;
        }
        if (nowNanos >= nextNakNanos) {
            receiver.onNakTimer(nowNanos, Math.max(SYN_NANOS, rtt.micros() * 1000L));
            nextNakNanos = Long.MAX_VALUE;
        }
        if (nowNanos >= expiryDeadline()) {
            onExpiry(nowNanos);
        }
        if (phase != Phase.CLOSED && nowNanos - lastSentNanos >= KEEP_ALIVE_NANOS) {
            sendKeepAlive();
        }
        afterEvent(nowNanos);
    }

    private long expiryDeadline() {
        return expiry.deadlineNanos(rtt.expiryNanos());
    }

    private void onExpiry(long nowNanos) {
        if (expiry.peerGone(nowNanos, config.peerTimeoutNanos())) {
            fail(UdtException.peerSilent(expiry.silentMillis(nowNanos), toString()));
            return;
        }
        boolean resend = sender.hasUnacked() || sender.pendingBytes() > 0;
        if (resend) {
            sender.onExpiry();
            cc.onTimeout(nowNanos);
        } else {
            sendKeepAlive();
        }
        expiry.expired(nowNanos, resend);
    }

    /** The congestion window in packets (at least 2). */
    private long windowPackets() {
        return Math.max(2, cc.cwndBytes() / payloadBytes);
    }

    // ------------------------------------------------------------------------------------------------
    // Application calls

    /** Queues data (in message mode, one message); ownership passes. Call {@link #flush} to send. */
    public void write(ByteBuf data) {
        if (phase != Phase.CONNECTED || sender == null) {
            data.release();
            return;
        }
        sender.write(data);
        updateWritability();
    }

    /** Stream writes up to this size are copied at once (the caller may keep the buffer's memory). */
    public static final int COPIED_WRITE_BYTES = UdtSender.COPIED_WRITE_BYTES;

    /**
     * Queues a 4-byte big-endian word in the byte stream, as a framing layer's header (a stream socket
     * only). No buffer is allocated for it: small writes share the sender's tail buffer.
     */
    public void writeWord(int word) {
        if (phase != Phase.CONNECTED || sender == null) {
            return;
        }
        sender.writeWord(word);
        updateWritability();
    }

    /** Sends what the window and the pacer allow now. */
    @Override
    public void flush(long nowNanos) {
        eventNanos = nowNanos;
        afterEvent(nowNanos);
    }

    /** The application consumed {@code bytes} delivered bytes: they no longer count against the receive buffer. */
    @Override
    public void consumed(int bytes, long nowNanos) {
        if (receiver != null) {
            eventNanos = nowNanos;
            receiver.consumed(bytes);
            afterEvent(nowNanos);
        }
    }

    /**
     * Closes gracefully: what is written is still sent and acknowledged, then a shutdown goes, as
     * UDT4's linger; after {@code lingerNanos} the shutdown goes regardless.
     */
    public void close(long lingerNanos, long nowNanos) {
        if (phase == Phase.CONNECTING) {
            finish(null);
        } else if (phase == Phase.CONNECTED) {
            eventNanos = nowNanos;
            phase = Phase.CLOSING;
            linger.start(lingerNanos, nowNanos);
            afterEvent(nowNanos);
        }
    }

    /** Sends the shutdown now and closes, dropping what is unsent. */
    @Override
    public void abort(long nowNanos) {
        eventNanos = nowNanos;
        if (phase == Phase.CONNECTED || phase == Phase.CLOSING) {
            sendShutdown();
        }
        finish(null);
    }

    private void afterEvent(long nowNanos) {
        if (phase != Phase.CONNECTED && phase != Phase.CLOSING) {
            return;
        }
        trySend(nowNanos);
        if (phase == Phase.CLOSING && (sender.isDrained() || linger.expired(nowNanos))) {
            long unsent = sender.bufferedBytes();
            receiver.finalAck(nowNanos, rtt.micros(), rtt.varianceMicros()); // what the peer sent last is confirmed before we go
            if (linger.awaitFinalAck2(receiver.wantsAckTimer(), rtt.expiryNanos(), nowNanos)) {
                if (nextAckNanos == Long.MAX_VALUE) {
                    nextAckNanos = nowNanos + SYN_NANOS; // the ACK timer repeats the final ACK meanwhile
                }
                return;
            }
            sendShutdown();
            finish(unsent > 0 ? new UdtException("linger expired with " + unsent + " bytes unacknowledged") : null);
            return;
        }
        if (receiver.wantsAckTimer() && nextAckNanos == Long.MAX_VALUE) {
            nextAckNanos = nowNanos + SYN_NANOS;
        }
        if (receiver.hasLoss() && nextNakNanos == Long.MAX_VALUE) {
            nextNakNanos = nowNanos + Math.max(MIN_NAK_INTERVAL_NANOS, rtt.expiryNanos());
        }
        updateWritability();
    }

    private void trySend(long nowNanos) {
        sendAtNanos = Long.MAX_VALUE;
        long window = windowPackets();
        long rate = cc.pacingRateBytesPerSecond(rtt.micros() * 1000L);
        if (maxBandwidth > 0) {
            rate = Math.min(rate, maxBandwidth);
        }
        lastPacingRate = rate;
        boolean pairSecond = false;
        for (long seq; expiry.maySend() && (seq = sender.peekNext((int) Math.min(Integer.MAX_VALUE, window))) >= 0; ) {
            if (!pairSecond && !pacer.canSend(nowNanos, rate)) {
                sendAtNanos = pacer.nextSendTimeNanos(nowNanos, rate);
                return;
            }
            long inflight = sender.unackedBytes();
            UdtSender.Block b = sender.take(seq);
            int len = b.payload.readableBytes();
            ByteBuf packet = config.allocator().buffer(UdtPacket.HEADER_BYTES + len);
            UdtPacket.writeDataHeader(packet, seq, b.messageWord, timestamp(nowNanos), peerId);
            packet.writeBytes(b.payload, b.payload.readerIndex(), len);
            out.send(packet);
            lastSentNanos = nowNanos;
            expiry.sent();
            pacer.onSent(packet.readableBytes(), nowNanos, rate);
            cc.onPacketSent(len, b.resent, inflight, nowNanos);
            pairSecond = !b.resent && (SeqNumbers.wire(seq) & 0xF) == 0;
        }
    }

    private void updateWritability() {
        if (sender == null) {
            return;
        }
        boolean now = phase == Phase.CONNECTED && sender.bufferedBytes() < (long) config.sendBufferPackets() * payloadBytes;
        if (now != writable) {
            writable = now;
            out.event(WRITABILITY_CHANGED);
        }
    }

    private void sendKeepAlive() {
        ByteBuf keepAlive = control(UdtPacket.KEEP_ALIVE, 0, 4);
        keepAlive.writeInt(0);
        transmit(keepAlive);
    }

    private void sendShutdown() {
        ByteBuf p = control(UdtPacket.SHUTDOWN, 0, 4);
        p.writeInt(0);
        transmit(p);
    }

    private void fail(UdtException cause) {
        if (phase == Phase.CONNECTED || phase == Phase.CLOSING) {
            sendShutdown();
        }
        finish(cause);
    }

    private void finish(Throwable cause) {
        if (phase == Phase.CLOSED) {
            return;
        }
        phase = Phase.CLOSED;
        if (sender != null) {
            sender.releaseAll();
            receiver.releaseAll();
        }
        writable = false;
        out.closed(cause);
    }

    // ------------------------------------------------------------------------------------------------
    // What the halves call

    ByteBuf control(int type, int info, int bodyBytes) {
        return UdtPacket.control(config.allocator(), type, info, timestamp(eventNanos), peerId, bodyBytes);
    }

    void transmit(ByteBuf packet) {
        out.send(packet);
        lastSentNanos = eventNanos;
    }

    void deliver(ByteBuf payload) {
        out.deliver(payload);
    }

    private int timestamp(long nowNanos) {
        return (int) ((nowNanos - startNanos) / 1000);
    }

    private void sendHandshake(int destination, long nowNanos) {
        ByteBuf p = UdtPacket.control(config.allocator(), UdtPacket.HANDSHAKE, 0, timestamp(nowNanos), destination, Handshake.BYTES);
        setup.ours().writeTo(p);
        out.send(p);
        setup.sent(nowNanos);
        lastSentNanos = nowNanos;
    }

    // ------------------------------------------------------------------------------------------------
    // Output and queries

    /** When the driver should call {@link #onTimer} next; {@link Long#MAX_VALUE} for never. */
    @Override
    public long nextDeadlineNanos() {
        return switch (phase) {
            case CONNECTING -> setup.nextDeadlineNanos();
            case CLOSED -> Long.MAX_VALUE;
            default -> Math.min(Math.min(Math.min(nextAckNanos, nextNakNanos), Math.min(sendAtNanos,
                    Math.min(expiryDeadline(), linger.deadlineNanos()))), lastSentNanos + KEEP_ALIVE_NANOS);
        };
    }

    /** Whether the connection is closed: nothing more is sent or received (UDT has no TIME_WAIT). */
    @Override
    public boolean isTerminated() {
        return phase == Phase.CLOSED;
    }

    /** The same as {@link #isTerminated}: a closed UDT connection answers nothing more. */
    @Override
    public boolean isClosed() {
        return phase == Phase.CLOSED;
    }

    public Phase phase() {
        return phase;
    }

    @Override
    public boolean isWritable() {
        return writable;
    }

    public boolean isEndOfStream() {
        return endOfStream;
    }

    /** This side's socket id. */
    public int socketId() {
        return socketId;
    }

    /** The peer's socket id, 0 before the handshake told it. */
    public int peerSocketId() {
        return peerId;
    }

    /** The MSS both sides use once connected (the smaller of theirs), 0 before. */
    public int negotiatedMss() {
        return negotiatedMss;
    }

    /** Payload bytes per packet once connected. */
    public int payloadBytes() {
        return payloadBytes;
    }

    /** The smoothed round-trip time in microseconds. */
    public int rttMicros() {
        return rtt.micros();
    }

    /** The congestion control, once connected. */
    public CongestionControl congestionControl() {
        return cc;
    }

    /** Bytes written and not yet acknowledged. */
    public long bufferedBytes() {
        return sender == null ? 0 : sender.bufferedBytes();
    }

    /** The RTT variance in microseconds. */
    public int rttVarianceMicros() {
        return rtt.varianceMicros();
    }

    /** What the connection counted so far. */
    public UdtCounters counters() {
        if (sender == null) {
            return new UdtCounters(0, 0, 0, 0, 0, 0, 0, 0, lastPacingRate);
        }
        return new UdtCounters(sender.packetsSent(), sender.packetsResent(), sender.bytesSent(), receiver.packetsReceived(),
                receiver.duplicates(), receiver.overflows(), feedback.lossReports(), feedback.capacityPacketsPerSecond(), lastPacingRate);
    }

    /** Where the connection stands, for a person reading a log or a failed test. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("UdtConnection[").append(socketId).append("->").append(peerId).append(' ').append(phase);
        if (sender != null) {
            s.append(" send: buffered=").append(sender.bufferedBytes()).append(" unacked=").append(sender.unackedBytes())
                    .append(" next=").append(sender.next()).append(" lastAck=").append(sender.lastAck())
                    .append(" flowWindow=").append(sender.flowWindow()).append(" sent=").append(sender.packetsSent())
                    .append(" resent=").append(sender.packetsResent())
                    .append("; receive: received=").append(receiver.packetsReceived()).append(" unconsumed=")
                    .append(receiver.unconsumedBytes()).append(" overflows=").append(receiver.overflows())
                    .append(" duplicates=").append(receiver.duplicates()).append(" losses=").append(receiver.lossSize())
                    .append("; rtt=").append(rtt.micros()).append("us/").append(rtt.varianceMicros()).append("us expiries=").append(expiry.count())
                    .append(" cwnd=").append(cc.cwndBytes()).append(" rate=").append(lastPacingRate)
                    .append(" deadlines ack=").append(nextAckNanos == Long.MAX_VALUE ? "-" : (nextAckNanos - eventNanos) / 1000 + "us")
                    .append(" nak=").append(nextNakNanos == Long.MAX_VALUE ? "-" : (nextNakNanos - eventNanos) / 1000 + "us")
                    .append(" send=").append(sendAtNanos == Long.MAX_VALUE ? "-" : (sendAtNanos - eventNanos) / 1000 + "us")
                    .append(" exp=").append((expiryDeadline() - eventNanos) / 1000).append("us");
        }
        return s.append(']').toString();
    }

    /** Why it closed: null for a normal end (or not yet closed). */
    public Throwable closeCause() {
        return out.closeCause();
    }
}
