package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.cc.CongestionControl;
import io.ferry.transport.ledbat.cc.CongestionControls;
import io.ferry.transport.ledbat.cc.CongestionParameters;
import io.ferry.transport.ledbat.cc.Pacer;
import io.ferry.transport.ledbat.wire.PacketReader;
import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.PacketValidity;
import io.ferry.transport.ledbat.wire.PacketWriter;
import io.ferry.transport.ledbat.wire.SelectiveAckBitmap;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.time.Duration;

/**
 * One uTP (BEP 29) connection as a sans-I/O state machine: it consumes received datagrams, the
 * application's bytes and the current time, and produces datagrams, delivered bytes, events and its
 * next timer deadline. It owns no socket, no thread and no clock.
 *
 * <h2>Driving it</h2>
 * <ul>
 *   <li>Create it with {@link #connect} (sends a SYN) or {@link #accept} (answers a SYN).</li>
 *   <li>Pass every datagram addressed to it to {@link #onPacket}; the caller keeps ownership of the
 *       buffer and may release it as soon as the call returns.</li>
 *   <li>After <em>every</em> call into the connection, (re)arm one timer for
 *       {@link #nextDeadlineNanos()} and call {@link #onTimer} when it fires (calling it early is
 *       harmless).</li>
 *   <li>Hand application bytes to {@link #write}, then {@link #flush}; stop when {@link #write} accepts
 *       less than offered and resume on {@link UtpCallbacks#onWritabilityChanged}.</li>
 *   <li>Report bytes the application has processed with {@link #consumed}; until then they count
 *       against the receive window (this is how {@code autoRead = false} applies backpressure).</li>
 *   <li>Forget the connection once {@link #isTerminated()} is true.</li>
 * </ul>
 * All times are the caller's monotonic clock in nanoseconds; one connection must be used from one
 * thread at a time.
 *
 * <h2>What it implements</h2>
 * Handshake with SYN retransmission and connect timeout; cumulative and selective ACKs (sent when
 * packets arrive out of order, honoured on receipt); delayed ACKs; an RFC 6298 retransmission timer
 * with Karn's rule and exponential back-off, failing after a bounded number of consecutive timeouts;
 * fast retransmit after three duplicate ACKs or when three later-sent packets were acknowledged;
 * pluggable congestion control (LEDBAT by default) with pacing; flow control by the receive window in
 * both directions, with window updates and zero-window probes; half-close with FIN in each
 * direction, RESET, keep-alive and idle timeout. All sequence arithmetic wraps at 2^16.
 */
public final class UtpConnection {
    /** Packets sent after a packet that must be acknowledged before it is declared lost. */
    static final int REORDER_THRESHOLD = 3;
    /** Duplicate ACKs that trigger a fast retransmission. */
    static final int DUPLICATE_ACK_THRESHOLD = 3;

    private static final long NONE = Long.MAX_VALUE;
    private static final int WINDOW_UPDATE_CAP = 64 * 1024;

    private final UtpConfig config;
    private final UtpCallbacks callbacks;
    private final ByteBufAllocator alloc;
    private final CongestionControl cc;
    private final Pacer pacer;
    private final RttEstimator rtt;
    private final AckScheduler acks;
    private final OutstandingPackets outstanding = new OutstandingPackets();
    private final SendQueue sendQueue = new SendQueue();
    private final InboundStream inbound;
    private final PacketReader reader = new PacketReader();
    private final SelectiveAckBitmap sack = new SelectiveAckBitmap();
    private final ConnectionStats stats = new ConnectionStats();
    private final int recvId;
    private final int sendId;
    private final boolean initiator;
    private final int maxPayload;

    private ConnectionState state;
    private boolean closedNotified;
    private boolean peerConfirmed;
    private int synSeq;
    private int seqNr;
    private long peerWindow;
    private int replyMicros;
    private long lastAdvertisedWindow;
    private boolean writable = true;

    private long sendOrderCounter;
    private long highestDeliveredSendOrder;
    private int duplicateAcks;
    private int consecutiveTimeouts;

    private boolean outputShutdown;
    private boolean finSent;
    private int finSeq;
    private boolean finAcked;
    private boolean closeRequested;
    private boolean probeDue;

    private long rtoDeadline = NONE;
    private long pacingDeadline = NONE;
    private long persistDeadline = NONE;
    private long persistIntervalNanos;
    private long connectDeadline = NONE;
    private long closeDeadline = NONE;
    private long lingerDeadline = NONE;
    private long lastSendNanos;
    private long lastReceiveNanos;

    private UtpConnection(UtpConfig config, UtpCallbacks callbacks, int recvId, int sendId, boolean initiator,
                          long nowNanos) {
        if (callbacks == null) {
            throw new IllegalArgumentException("callbacks must not be null");
        }
        this.config = config;
        this.callbacks = callbacks;
        this.alloc = config.allocator();
        this.recvId = recvId & UtpWire.SEQ_MASK;
        this.sendId = sendId & UtpWire.SEQ_MASK;
        this.initiator = initiator;
        this.maxPayload = config.maxPayloadSize();
        this.cc = CongestionControls.create(config.congestionControl(),
                new CongestionParameters(maxPayload, Math.max(1, config.targetDelayNanos() / 1000)));
        this.pacer = new Pacer(2 * config.packetSize());
        this.rtt = new RttEstimator(config.minRtoNanos(), config.maxRtoNanos());
        this.acks = new AckScheduler(config.delayedAckTimeoutNanos());
        this.inbound = new InboundStream(config, callbacks, acks, stats);
        this.peerWindow = config.packetSize();
        this.lastSendNanos = nowNanos;
        this.lastReceiveNanos = nowNanos;
    }

    /**
     * Opens a connection: creates the initiator side and sends its SYN (through
     * {@link UtpCallbacks#sendPacket}) before returning.
     *
     * @param config       the settings
     * @param recvId       a random connection id; packets to this side carry it, the peer's carry
     *                     {@code recvId + 1}. The caller keeps it unique per remote address.
     * @param initialSeqNr the SYN's sequence number (BEP 29 uses 1; any value works)
     * @param nowNanos     the current time
     * @param callbacks    the connection's outputs
     * @return the connection, in state {@link ConnectionState#SYN_SENT}
     */
    public static UtpConnection connect(UtpConfig config, int recvId, int initialSeqNr, long nowNanos,
                                        UtpCallbacks callbacks) {
        UtpConnection c = new UtpConnection(config, callbacks, recvId, recvId + 1, true, nowNanos);
        c.state = ConnectionState.SYN_SENT;
        c.peerConfirmed = true;
        c.seqNr = initialSeqNr & UtpWire.SEQ_MASK;
        c.synSeq = c.seqNr;
        c.connectDeadline = nowNanos + config.connectTimeoutNanos();
        c.sendSyn(nowNanos);
        return c;
    }

    /**
     * Accepts a connection: creates the acceptor side for a received SYN, answers it with a STATE and
     * reports {@link UtpCallbacks#onConnected()} before returning.
     *
     * @param config       the settings
     * @param syn          the SYN datagram (the caller keeps ownership)
     * @param initialSeqNr this side's first sequence number (should be random)
     * @param nowNanos     the current time
     * @param callbacks    the connection's outputs
     * @return the connection, in state {@link ConnectionState#CONNECTED}
     * @throws IllegalArgumentException if {@code syn} is not a valid SYN packet
     */
    public static UtpConnection accept(UtpConfig config, ByteBuf syn, int initialSeqNr, long nowNanos,
                                       UtpCallbacks callbacks) {
        PacketReader r = new PacketReader();
        PacketValidity validity = r.wrap(syn);
        if (validity != PacketValidity.VALID) {
            throw new IllegalArgumentException("not a valid uTP packet: " + validity);
        }
        if (r.type() != PacketType.SYN) {
            throw new IllegalArgumentException("expected a SYN packet, got " + r.type());
        }
        int peerRecvId = r.connectionId();
        UtpConnection c = new UtpConnection(config, callbacks, peerRecvId + 1, peerRecvId, false, nowNanos);
        c.state = ConnectionState.CONNECTED;
        c.seqNr = initialSeqNr & UtpWire.SEQ_MASK;
        c.inbound.start(r.seqNr());
        c.peerWindow = r.windowSize();
        c.stats.packetsReceived++;
        c.noteTimestamps(r, nowNanos);
        c.sendState(nowNanos);
        c.rtoDeadline = nowNanos + c.rtt.rtoNanos();
        callbacks.onConnected();
        return c;
    }

    // ------------------------------------------------------------------------------------------------
    // Entry points

    /**
     * Processes one received datagram addressed to this connection. Malformed datagrams are counted
     * and dropped; nothing is thrown for anything the peer sends.
     *
     * @param packet   the datagram's bytes (readable bytes); the caller keeps ownership
     * @param nowNanos the current time
     */
    public void onPacket(ByteBuf packet, long nowNanos) {
        if (state == ConnectionState.TERMINATED) {
            return;
        }
        PacketValidity validity = reader.wrap(packet);
        if (validity != PacketValidity.VALID) {
            stats.malformedPacketsDropped++;
            return;
        }
        PacketType type = reader.type();
        if (!isAddressedToUs(type)) {
            return;
        }
        stats.packetsReceived++;
        if (state == ConnectionState.LINGERING) {
            if (type == PacketType.DATA || type == PacketType.FIN) {
                sendState(nowNanos);
                lingerDeadline = nowNanos + lingerQuietNanos();
            }
            return;
        }
        lastReceiveNanos = nowNanos;
        if (type == PacketType.RESET) {
            onReset();
            return;
        }
        if (!peerConfirmed && type != PacketType.SYN) {
            confirmPeer();
        }
        if (state == ConnectionState.SYN_SENT) {
            if (!completeHandshake(nowNanos) || closedNotified) {
                return;
            }
        } else if (type == PacketType.SYN) {
            // our answer to the SYN was lost and the initiator sent it again
            noteTimestamps(reader, nowNanos);
            sendState(nowNanos);
            return;
        }
        noteTimestamps(reader, nowNanos);
        if (!processAck(type, nowNanos)) {
            return;
        }
        if (initiator && type == PacketType.STATE && reader.ackNr() == synSeq
                && seqNr == UtpWire.seqAdd(synSeq, 1)) {
            // a repeated handshake answer: our confirmation was lost
            acks.requestImmediate();
        }
        if (type == PacketType.DATA || type == PacketType.FIN) {
            inbound.onPacket(type, reader.seqNr(), packet, reader.payloadOffset(), reader.payloadLength(), nowNanos);
            if (closedNotified) {
                return;
            }
        }
        afterEvent(nowNanos);
    }

    /**
     * Runs whatever timers are due: retransmission, delayed ACK, pacing, zero-window probe,
     * keep-alive, idle, connect, close and linger timeouts.
     *
     * @param nowNanos the current time
     */
    public void onTimer(long nowNanos) {
        if (state == ConnectionState.TERMINATED) {
            return;
        }
        if (state == ConnectionState.LINGERING) {
            if (nowNanos >= lingerDeadline) {
                state = ConnectionState.TERMINATED;
                lingerDeadline = NONE;
            }
            return;
        }
        if (nowNanos >= connectDeadline) {
            failAndReset(UtpException.Reason.CONNECT_TIMEOUT,
                    "connect timed out after " + millis(config.connectTimeoutNanos()), nowNanos);
            return;
        }
        if (nowNanos >= closeDeadline) {
            failAndReset(UtpException.Reason.CLOSE_TIMEOUT,
                    "graceful close did not complete within " + millis(config.closeTimeoutNanos()), nowNanos);
            return;
        }
        if (state == ConnectionState.CONNECTED && config.idleTimeoutNanos() > 0
                && nowNanos - lastReceiveNanos >= config.idleTimeoutNanos()) {
            failAndReset(UtpException.Reason.IDLE_TIMEOUT,
                    "idle timeout: nothing received from the peer for " + millis(config.idleTimeoutNanos()), nowNanos);
            return;
        }
        if (nowNanos >= rtoDeadline) {
            onRetransmissionTimeout(nowNanos);
            if (closedNotified) {
                return;
            }
        }
        if (nowNanos >= persistDeadline) {
            persistDeadline = NONE;
            probeDue = true;
        }
        if (state == ConnectionState.CONNECTED && config.keepAliveIntervalNanos() > 0
                && nowNanos - lastSendNanos >= config.keepAliveIntervalNanos()) {
            sendState(nowNanos);
        }
        afterEvent(nowNanos);
    }

    /**
     * Returns when {@link #onTimer} must next be called, or {@link Long#MAX_VALUE} if no timer is
     * needed. Re-read it after every call into the connection.
     */
    public long nextDeadlineNanos() {
        switch (state) {
            case TERMINATED:
                return NONE;
            case LINGERING:
                return lingerDeadline;
            default:
                break;
        }
        long d = Math.min(connectDeadline, closeDeadline);
        d = Math.min(d, rtoDeadline);
        d = Math.min(d, acks.deadlineNanos());
        d = Math.min(d, pacingDeadline);
        d = Math.min(d, persistDeadline);
        if (state == ConnectionState.CONNECTED) {
            if (config.keepAliveIntervalNanos() > 0) {
                d = Math.min(d, lastSendNanos + config.keepAliveIntervalNanos());
            }
            if (config.idleTimeoutNanos() > 0) {
                d = Math.min(d, lastReceiveNanos + config.idleTimeoutNanos());
            }
        }
        return d;
    }

    /**
     * Queues application bytes for sending: takes as many readable bytes of {@code data} as the send
     * buffer has room for (advancing its reader index, without copying). The caller keeps ownership of
     * {@code data}. The bytes are sent after the next {@link #flush}.
     *
     * @param data the bytes to send
     * @return the number of bytes taken; less than offered means the send buffer is full
     * @throws IllegalStateException if the output was shut down or the connection is closed
     */
    public int write(ByteBuf data) {
        if (closedNotified || outputShutdown) {
            throw new IllegalStateException(closedNotified ? "connection is closed" : "output is shut down");
        }
        int n = (int) Math.min(data.readableBytes(), sendBufferSpace());
        if (n > 0) {
            sendQueue.add(data, n);
        }
        updateWritability();
        return n;
    }

    /**
     * Makes every byte written so far eligible for sending and sends what the windows allow; a last
     * partial packet is sent rather than held back.
     *
     * @param nowNanos the current time
     */
    public void flush(long nowNanos) {
        if (closedNotified) {
            return;
        }
        sendQueue.flush();
        afterEvent(nowNanos);
    }

    /**
     * Reports that the application processed {@code bytes} of delivered data, reopening the receive
     * window by as much. A window update is sent when the window grew enough to matter to the peer.
     *
     * @param bytes    bytes processed since the last call
     * @param nowNanos the current time
     */
    public void consumed(int bytes, long nowNanos) {
        if (closedNotified || bytes <= 0) {
            return;
        }
        inbound.consumed(bytes);
        long window = inbound.window();
        long threshold = Math.max(2L * maxPayload, Math.min(config.receiveBufferSize() / 4, WINDOW_UPDATE_CAP));
        if (window - lastAdvertisedWindow >= threshold || (lastAdvertisedWindow < maxPayload && window >= maxPayload)) {
            acks.requestImmediate();
        }
        afterEvent(nowNanos);
    }

    /**
     * Half-closes the connection: a FIN follows all bytes written so far (they are flushed). Data from
     * the peer keeps arriving until its own FIN.
     *
     * @param nowNanos the current time
     */
    public void shutdownOutput(long nowNanos) {
        if (closedNotified || outputShutdown) {
            return;
        }
        outputShutdown = true;
        sendQueue.flush();
        afterEvent(nowNanos);
    }

    /**
     * Closes gracefully: sends a FIN after the queued bytes, discards further incoming data and
     * completes when both FINs are acknowledged, reporting {@code onClosed(null)}. Draining the send
     * buffer is bounded by the retransmission limit like any transfer; once our FIN is acknowledged,
     * the peer has the close timeout to send its own FIN, after which the connection is reset and
     * fails with {@link UtpException.Reason#CLOSE_TIMEOUT}. Before the handshake completes this is an
     * {@link #abort}.
     *
     * @param nowNanos the current time
     */
    public void close(long nowNanos) {
        if (closedNotified) {
            return;
        }
        if (state == ConnectionState.SYN_SENT) {
            abort(nowNanos);
            return;
        }
        if (!closeRequested) {
            closeRequested = true;
            inbound.discardFurtherData();
        }
        if (!outputShutdown) {
            outputShutdown = true;
            sendQueue.flush();
        }
        afterEvent(nowNanos);
    }

    /**
     * Closes at once: sends a RESET, drops every buffer and reports {@code onClosed(null)}.
     *
     * @param nowNanos the current time
     */
    public void abort(long nowNanos) {
        if (closedNotified) {
            return;
        }
        sendReset(nowNanos);
        terminate(null);
    }

    // ------------------------------------------------------------------------------------------------
    // Queries

    /** Returns the id carried by packets addressed to this side. */
    public int recvId() {
        return recvId;
    }

    /** Returns the id this side puts in the packets it sends (the peer's {@code recvId}). */
    public int sendId() {
        return sendId;
    }

    /** Returns whether this side sent the SYN. */
    public boolean isInitiator() {
        return initiator;
    }

    /** Returns the life-cycle state. */
    public ConnectionState state() {
        return state;
    }

    /** Returns whether {@link UtpCallbacks#onClosed} was reported. */
    public boolean isClosed() {
        return closedNotified;
    }

    /** Returns whether the connection needs no more packets or timers: the driver may forget it. */
    public boolean isTerminated() {
        return state == ConnectionState.TERMINATED;
    }

    /**
     * Returns whether this connection would accept a RESET carrying {@code connectionId}: a peer may
     * reset with either id of the pair (libutp answers unknown packets with the id they carried).
     */
    public boolean acceptsReset(int connectionId) {
        return connectionId == recvId || connectionId == sendId;
    }

    /** Returns whether {@link #write} may be called and is worth calling (the send buffer has room). */
    public boolean isWritable() {
        return writable && !outputShutdown && !closedNotified;
    }

    /** Returns whether the output was shut down ({@link #shutdownOutput} or {@link #close}). */
    public boolean isOutputShutdown() {
        return outputShutdown;
    }

    /** Returns whether the peer's FIN was reached: no more data will be delivered. */
    public boolean isInputShutdown() {
        return inbound.isFinished();
    }

    /** Returns how many more bytes {@link #write} would accept now. */
    public long sendBufferSpace() {
        return Math.max(0, config.sendBufferSize() - sendBuffered());
    }

    /** Returns the receive window this side currently advertises, in bytes. */
    public long receiveWindow() {
        return inbound.window();
    }

    /** Returns the peer's last advertised receive window, in bytes. */
    public long peerWindowBytes() {
        return peerWindow;
    }

    /** Returns the payload bytes in flight (sent, not acknowledged, not declared lost). */
    public long bytesInFlight() {
        return outstanding.bytesInFlight();
    }

    /** Returns the congestion window in bytes. */
    public long cwndBytes() {
        return cc.cwndBytes();
    }

    /** Returns the name of the congestion controller. */
    public String congestionControlName() {
        return cc.name();
    }

    /** Returns the smoothed RTT in nanoseconds, or -1 before the first sample. */
    public long smoothedRttNanos() {
        return rtt.srttNanos();
    }

    /** Returns the RTT variation in nanoseconds, or -1 before the first sample. */
    public long rttVarianceNanos() {
        return rtt.rttVarNanos();
    }

    /** Returns the current retransmission timeout (back-off included) in nanoseconds. */
    public long rtoNanos() {
        return rtt.rtoNanos();
    }

    /** Returns the congestion controller's queuing-delay estimate in microseconds, or -1 if unknown. */
    public long queuingDelayMicros() {
        return cc.queuingDelayMicros();
    }

    /**
     * Returns the congestion controller's base-delay estimate in microseconds (it includes the offset
     * between the two clocks), or -1 if unknown.
     */
    public long baseDelayMicros() {
        return cc.baseDelayMicros();
    }

    /** Returns the live counters. */
    public ConnectionStats stats() {
        return stats;
    }

    // ------------------------------------------------------------------------------------------------
    // Receiving

    private boolean isAddressedToUs(PacketType type) {
        int id = reader.connectionId();
        switch (type) {
            case RESET:
                return acceptsReset(id);
            case SYN:
                return !initiator && id == sendId;
            default:
                return id == recvId;
        }
    }

    /**
     * Completes the initiator's handshake on the acceptor's STATE, whose sequence number is the one
     * its first data packet will carry. Data cannot complete it: a data packet does not say whether
     * earlier ones were sent, and our acceptor sends none before it hears from us.
     */
    private boolean completeHandshake(long nowNanos) {
        if (reader.type() != PacketType.STATE || reader.ackNr() != synSeq) {
            return false;
        }
        state = ConnectionState.CONNECTED;
        connectDeadline = NONE;
        inbound.start(UtpWire.seqAdd(reader.seqNr(), -1));
        // confirm at once, so that an acceptor with something to say may start
        acks.requestImmediate();
        callbacks.onConnected();
        return true;
    }

    /**
     * The acceptor heard from the initiator after the SYN, so the initiator knows our first sequence
     * number: data may flow, and the handshake answer no longer needs repeating.
     */
    private void confirmPeer() {
        peerConfirmed = true;
        consecutiveTimeouts = 0;
        if (outstanding.isEmpty()) {
            rtoDeadline = NONE;
        }
    }

    private void noteTimestamps(PacketReader r, long nowNanos) {
        int theirTimestamp = r.timestampMicros();
        if (theirTimestamp != 0) {
            int delay = UtpWire.micros32(nowNanos) - theirTimestamp;
            replyMicros = delay == 0 ? 1 : delay;
        }
        int ourDelay = r.timestampDifferenceMicros();
        if (ourDelay != 0) {
            cc.onDelaySample(ourDelay, nowNanos);
        }
    }

    /**
     * Applies the packet's acknowledgement. Returns false if the packet acknowledges something never
     * sent, in which case it is ignored entirely.
     */
    private boolean processAck(PacketType type, long nowNanos) {
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
        long flightBefore = outstanding.bytesInFlight();
        long newlyAcked = 0;
        long rttSample = -1;
        long newestSampleSentAt = Long.MIN_VALUE;
        long deliveredOrderBefore = highestDeliveredSendOrder;

        int cumulative = UtpWire.seqDiff(pktAck, UtpWire.seqAdd(outstanding.firstSeq(), -1));
        for (int i = 0; i < cumulative; i++) {
            int seq = outstanding.firstSeq();
            if (!outstanding.isSacked(seq)) {
                if (outstanding.transmissions(seq) == 1 && outstanding.sentAtNanos(seq) > newestSampleSentAt) {
                    newestSampleSentAt = outstanding.sentAtNanos(seq);
                    rttSample = nowNanos - newestSampleSentAt;
                    highestDeliveredSendOrder = Math.max(highestDeliveredSendOrder, outstanding.sendOrder(seq));
                }
            }
            if (finSent && seq == finSeq) {
                finAcked = true;
            }
            newlyAcked += outstanding.removeFirst();
        }
        boolean sackProgress = false;
        if (reader.hasSelectiveAck() && !outstanding.isEmpty()) {
            int bits = reader.selectiveAckBits();
            for (int i = 0; i < bits; i++) {
                if (!reader.isSelectivelyAcked(i)) {
                    continue;
                }
                int seq = UtpWire.seqAdd(pktAck, 2 + i);
                if (!outstanding.contains(seq)) {
                    break;
                }
                if (outstanding.isSacked(seq)) {
                    continue;
                }
                if (outstanding.transmissions(seq) == 1) {
                    highestDeliveredSendOrder = Math.max(highestDeliveredSendOrder, outstanding.sendOrder(seq));
                    if (outstanding.sentAtNanos(seq) > newestSampleSentAt) {
                        newestSampleSentAt = outstanding.sentAtNanos(seq);
                        rttSample = nowNanos - newestSampleSentAt;
                    }
                }
                newlyAcked += outstanding.markSacked(seq);
                sackProgress = true;
            }
        }

        if (rttSample >= 0) {
            rtt.onSample(rttSample);
        }
        if (cumulative > 0 || sackProgress) {
            consecutiveTimeouts = 0;
            duplicateAcks = 0;
            rtt.resetBackOff();
            rtoDeadline = outstanding.isEmpty() ? NONE : nowNanos + rtt.rtoNanos();
        } else if (type == PacketType.STATE && reader.payloadLength() == 0) {
            countDuplicateAck(nowNanos);
        }
        if (newlyAcked > 0) {
            cc.onAck(newlyAcked, flightBefore, rttSample, nowNanos);
        }
        if (highestDeliveredSendOrder > deliveredOrderBefore) {
            detectLossByReordering(nowNanos);
        }
        return true;
    }

    private void countDuplicateAck(long nowNanos) {
        if (++duplicateAcks < DUPLICATE_ACK_THRESHOLD) {
            return;
        }
        duplicateAcks = 0;
        int first = outstanding.firstSeq();
        if (outstanding.transmissions(first) == 1 && outstanding.isInFlight(first)) {
            declareLost(first, nowNanos);
        }
    }

    /**
     * Declares lost every packet still in flight whose transmission was followed by at least
     * {@link #REORDER_THRESHOLD} transmissions that have been acknowledged; with fewer packets in
     * flight the threshold drops to one less than their number (early retransmit, RFC 5827), so a
     * small window does not have to wait for a timeout. Only first transmissions advance the
     * delivered mark (Karn), so a retransmission is never judged by an ambiguous ACK.
     */
    private void detectLossByReordering(long nowNanos) {
        int threshold = Math.max(1, Math.min(REORDER_THRESHOLD, outstanding.packetsInFlight() - 1));
        int n = outstanding.count();
        int seq = outstanding.firstSeq();
        for (int i = 0; i < n; i++, seq = UtpWire.seqAdd(seq, 1)) {
            if (!outstanding.isInFlight(seq)) {
                continue;
            }
            boolean eligible = outstanding.sendOrder(seq) + threshold <= highestDeliveredSendOrder;
            if (eligible) {
                declareLost(seq, nowNanos);
            } else if (outstanding.transmissions(seq) == 1) {
                // first transmissions are in send order: every later one is newer still
                return;
            }
        }
    }

    private void declareLost(int seq, long nowNanos) {
        outstanding.markLost(seq);
        stats.packetsLost++;
        cc.onLoss(nowNanos, rtt.srttNanos());
    }

    private void onReset() {
        if (state == ConnectionState.SYN_SENT) {
            terminate(new UtpException(UtpException.Reason.CONNECTION_REFUSED, "connection refused by peer"));
        } else if (inbound.isFinished() && finSent && onlyFinUnacked()) {
            // the peer saw our FIN (it acknowledged everything before it) and is gone: only our last
            // acknowledgement of its FIN, or its acknowledgement of ours, was lost
            terminate(null);
        } else {
            terminate(new UtpException(UtpException.Reason.RESET_BY_PEER, "connection reset by peer"));
        }
    }

    private boolean onlyFinUnacked() {
        return outstanding.isEmpty() || (outstanding.count() == 1 && outstanding.firstSeq() == finSeq);
    }

    // ------------------------------------------------------------------------------------------------
    // Sending

    private void afterEvent(long nowNanos) {
        if (closedNotified) {
            return;
        }
        trySend(nowNanos);
        if (state == ConnectionState.CONNECTED && acks.isDue(nowNanos)) {
            sendState(nowNanos);
        }
        updateWritability();
        maybeFinish(nowNanos);
    }

    private void trySend(long nowNanos) {
        if (state != ConnectionState.CONNECTED || !peerConfirmed) {
            return;
        }
        pacingDeadline = NONE;
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
                return;
            }
            if (!resend && outstanding.isFull()) {
                return;
            }
            long flight = outstanding.bytesInFlight();
            if (flight > 0 && flight + payload > cc.cwndBytes()) {
                return;
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
                        return;
                    }
                }
            }
            long rate = cc.pacingRateBytesPerSecond(rtt.srttNanos());
            if (!pacer.canSend(nowNanos, rate)) {
                pacingDeadline = pacer.nextSendTimeNanos(nowNanos, rate);
                return;
            }
            if (resend) {
                transmit(resendSeq, nowNanos);
            } else {
                if (probe) {
                    probeDue = false;
                }
                sendNew(payload, fin, nowNanos);
            }
        }
    }

    private void armPersistTimer(long nowNanos) {
        if (!outstanding.isEmpty() || persistDeadline != NONE) {
            return;
        }
        persistIntervalNanos = persistIntervalNanos == 0
                ? rtt.rtoNanos()
                : Math.min(persistIntervalNanos * 2, config.maxRtoNanos());
        persistDeadline = nowNanos + persistIntervalNanos;
    }

    private void sendSyn(long nowNanos) {
        ByteBuf p = alloc.ioBuffer(UtpWire.HEADER_SIZE);
        PacketWriter.writeHeader(p, PacketType.SYN, UtpWire.EXTENSION_NONE, recvId, 0, 0, 0, seqNr, 0);
        outstanding.add(seqNr, p, 0);
        int seq = seqNr;
        seqNr = UtpWire.seqAdd(seqNr, 1);
        transmit(seq, nowNanos);
    }

    private void sendNew(int payload, boolean fin, long nowNanos) {
        ByteBuf p = alloc.ioBuffer(UtpWire.HEADER_SIZE + payload);
        PacketWriter.writeHeader(p, fin ? PacketType.FIN : PacketType.DATA, UtpWire.EXTENSION_NONE, sendId,
                0, 0, 0, seqNr, inbound.ackNr());
        if (payload > 0) {
            sendQueue.transferTo(p, payload);
        }
        outstanding.add(seqNr, p, payload);
        if (fin) {
            finSent = true;
            finSeq = seqNr;
        }
        int seq = seqNr;
        seqNr = UtpWire.seqAdd(seqNr, 1);
        transmit(seq, nowNanos);
    }

    /** Puts stored packet {@code seq} on the wire, refreshing its timestamps, window and ack. */
    private void transmit(int seq, long nowNanos) {
        ByteBuf p = outstanding.packet(seq);
        long window = inbound.window();
        PacketWriter.refresh(p, UtpWire.micros32(nowNanos), replyMicros, window, inbound.ackNr());
        int payload = outstanding.payload(seq);
        if (outstanding.transmissions(seq) > 0) {
            stats.retransmissions++;
        }
        outstanding.onSent(seq, nowNanos, ++sendOrderCounter);
        stats.packetsSent++;
        stats.payloadBytesSent += payload;
        lastAdvertisedWindow = window;
        lastSendNanos = nowNanos;
        if (!inbound.hasGap()) {
            acks.onAckSent();
        }
        pacer.onSent(UtpWire.HEADER_SIZE + payload, nowNanos, cc.pacingRateBytesPerSecond(rtt.srttNanos()));
        if (rtoDeadline == NONE) {
            rtoDeadline = nowNanos + rtt.rtoNanos();
        }
        callbacks.sendPacket(p.retainedDuplicate());
    }

    private void sendState(long nowNanos) {
        inbound.fillSelectiveAck(sack);
        int sackLength = sack.encodedLength();
        int size = UtpWire.HEADER_SIZE + (sackLength > 0 ? UtpWire.EXTENSION_HEADER_SIZE + sackLength : 0);
        ByteBuf p = alloc.ioBuffer(size);
        long window = inbound.window();
        PacketWriter.writeHeader(p, PacketType.STATE,
                sackLength > 0 ? UtpWire.EXTENSION_SELECTIVE_ACK : UtpWire.EXTENSION_NONE,
                sendId, UtpWire.micros32(nowNanos), replyMicros, window, seqNr, inbound.ackNr());
        if (sackLength > 0) {
            PacketWriter.writeSelectiveAck(p, UtpWire.EXTENSION_NONE, sack);
        }
        lastAdvertisedWindow = window;
        lastSendNanos = nowNanos;
        acks.onAckSent();
        stats.packetsSent++;
        callbacks.sendPacket(p);
    }

    private void sendReset(long nowNanos) {
        ByteBuf p = alloc.ioBuffer(UtpWire.HEADER_SIZE);
        PacketWriter.writeHeader(p, PacketType.RESET, UtpWire.EXTENSION_NONE, sendId, UtpWire.micros32(nowNanos),
                replyMicros, 0, seqNr, inbound.ackNr());
        stats.packetsSent++;
        callbacks.sendPacket(p);
    }

    // ------------------------------------------------------------------------------------------------
    // Timers and closing

    private void onRetransmissionTimeout(long nowNanos) {
        rtoDeadline = NONE;
        if (outstanding.isEmpty() && peerConfirmed) {
            return;
        }
        consecutiveTimeouts++;
        stats.timeouts++;
        if (consecutiveTimeouts > config.maxRetransmits()) {
            String what = state == ConnectionState.SYN_SENT ? "SYN"
                    : !peerConfirmed ? "handshake answer" : "packet " + outstanding.firstSeq();
            failAndReset(UtpException.Reason.RETRANSMIT_LIMIT, "peer stopped responding: " + what + " unacknowledged after "
                    + config.maxRetransmits() + " retransmissions", nowNanos);
            return;
        }
        rtt.backOff();
        if (!peerConfirmed) {
            sendState(nowNanos);
            rtoDeadline = nowNanos + rtt.rtoNanos();
            return;
        }
        cc.onTimeout(nowNanos);
        duplicateAcks = 0;
        int seq = outstanding.firstSeq();
        for (int i = 0, n = outstanding.count(); i < n; i++, seq = UtpWire.seqAdd(seq, 1)) {
            outstanding.markLost(seq);
        }
        rtoDeadline = nowNanos + rtt.rtoNanos();
        if (state == ConnectionState.SYN_SENT) {
            transmit(outstanding.firstSeq(), nowNanos);
        }
    }

    private void maybeFinish(long nowNanos) {
        if (state != ConnectionState.CONNECTED || !finAcked || closedNotified) {
            return;
        }
        if (!inbound.isFinished()) {
            if (closeRequested && closeDeadline == NONE) {
                closeDeadline = nowNanos + config.closeTimeoutNanos();
            }
            return;
        }
        releaseBuffers();
        clearTimers();
        state = ConnectionState.LINGERING;
        lingerDeadline = nowNanos + lingerQuietNanos();
        notifyClosed(null);
    }

    /**
     * How long a gracefully closed connection keeps acknowledging the peer's retransmissions after the
     * last one arrived. The peer's only way to learn that its last packets arrived is our
     * acknowledgement, and its retransmissions are at most one maximum RTO apart, so twice that (like
     * TCP's TIME_WAIT of two segment lifetimes) outlasts every retransmission it will make.
     */
    private long lingerQuietNanos() {
        return 2 * config.maxRtoNanos();
    }

    private void failAndReset(UtpException.Reason reason, String message, long nowNanos) {
        sendReset(nowNanos);
        terminate(new UtpException(reason, message));
    }

    private void terminate(Throwable cause) {
        state = ConnectionState.TERMINATED;
        releaseBuffers();
        clearTimers();
        notifyClosed(cause);
    }

    private void notifyClosed(Throwable cause) {
        if (!closedNotified) {
            closedNotified = true;
            writable = false;
            callbacks.onClosed(cause);
        }
    }

    private void releaseBuffers() {
        outstanding.releaseAll();
        sendQueue.releaseAll();
        inbound.releaseAll();
    }

    private void clearTimers() {
        rtoDeadline = NONE;
        pacingDeadline = NONE;
        persistDeadline = NONE;
        connectDeadline = NONE;
        closeDeadline = NONE;
        lingerDeadline = NONE;
        acks.onAckSent();
    }

    private void updateWritability() {
        if (closedNotified) {
            return;
        }
        if (writable && sendBufferSpace() == 0) {
            writable = false;
            callbacks.onWritabilityChanged(false);
        } else if (!writable && sendBuffered() <= config.sendBufferSize() / 2) {
            writable = true;
            callbacks.onWritabilityChanged(true);
        }
    }

    private long sendBuffered() {
        return sendQueue.queuedBytes() + outstanding.unackedPayloadBytes();
    }

    private static String millis(long nanos) {
        return Duration.ofNanos(nanos).toMillis() + " ms";
    }
}
