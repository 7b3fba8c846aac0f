package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.cc.CongestionControl;
import io.ferry.transport.ledbat.cc.CongestionControls;
import io.ferry.transport.ledbat.cc.CongestionParameters;
import io.ferry.transport.ledbat.core.TimerTable.Timer;
import io.ferry.transport.ledbat.wire.PacketReader;
import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.PacketWriter;
import io.ferry.transport.ledbat.wire.PacketValidity;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;

import java.time.Duration;

/**
 * One uTP (BEP 29) connection as a sans-I/O state machine: it consumes received datagrams, the
 * application's bytes and the current time, and produces datagrams, delivered bytes, events and its
 * next timer deadline. It owns no socket, no thread and no clock, and it never calls out: its driver
 * pulls what it produced, in the manner of quinn-proto's {@code poll_transmit} and quiche's
 * {@code send}, so no code of the driver runs in the middle of the connection's handling of an event.
 *
 * <h2>Driving it</h2>
 * <ul>
 *   <li>Create it with {@link #connect} (queues a SYN) or {@link #accept} (queues the answer to a SYN).</li>
 *   <li>Pass every datagram addressed to it to {@link #onPacket}; the caller keeps ownership of the
 *       buffer and may release it as soon as the call returns.</li>
 *   <li>After <em>every</em> call into the connection (its factories included): take the datagrams to
 *       send with {@link #pollTransmit} until it returns {@code null}, the events with
 *       {@link #pollEvents}, and the delivered payload with {@link #pollData} until it returns
 *       {@code null}; then (re)arm one timer for {@link #nextDeadlineNanos()} and call
 *       {@link #onTimer} when it fires (calling it early is harmless). What the driver does with the
 *       events may call into the connection again; then collect again.</li>
 *   <li>Hand application bytes to {@link #write}, then {@link #flush}; stop when {@link #write} accepts
 *       less than offered and resume after the {@link #WRITABILITY_CHANGED} event finds
 *       {@link #isWritable()} true.</li>
 *   <li>Report bytes the application has processed with {@link #consumed}; until then they count
 *       against the receive window (this is how {@code autoRead = false} applies backpressure).</li>
 *   <li>Forget the connection once {@link #isTerminated()} is true.</li>
 * </ul>
 * All times are the caller's monotonic clock in nanoseconds; one connection must be used from one
 * thread at a time.
 *
 * <h2>What it implements</h2>
 * BEP 29's handshake, data, selective acknowledgements, FIN and RESET, with RFC 6298's retransmission
 * timer, loss detection by transmission order, tail-loss probes (RFC 8985), pluggable congestion control
 * with pacing, flow control in both directions, half-close, keep-alive and idle timeout; sequence
 * arithmetic wraps at 2^16. Its parts: {@link Handshake}, {@code SendPath}, {@link LossRecovery},
 * {@code InboundStream}, {@link AckScheduler}, its {@link Phase} and its {@link TimerTable}. Each mechanism, and what keeps
 * heavy random loss cheap, in docs/utp-protocol.md.
 */
public final class UtpConnection extends AbstractEngineConnection {
    /**
     * How long an acceptor waits for the initiator to prove its address (at most the connect timeout).
     * Three answers fit in it (at 0, one RTO and three RTOs); an initiator whose SYN arrives after it
     * expired simply starts a new half-open connection.
     */
    private static final long HALF_OPEN_LIFETIME_NANOS = 5_000_000_000L;

    /** Answers an acceptor sends per SYN received before the initiator has proven its address. */
    public static final int MAX_AMPLIFICATION = Handshake.MAX_AMPLIFICATION;

    /** How far (in packets) a STATE's sequence or acknowledgement number may stray and still be believed. */
    private static final int STATE_SEQ_SLACK = 1024;

    /** Timestamp-derived round trips at least this long are taken for clock trouble and ignored. */
    static final long MAX_TIMESTAMP_RTT_MICROS = 60_000_000L;

    private static final long NONE = Long.MAX_VALUE;
    private static final int WINDOW_UPDATE_CAP = 64 * 1024;

    private final UtpConfig config;
    private final CongestionControl cc;
    private final RttEstimator rtt;
    /**
     * The round trip from the BEP 29 timestamps of every packet received: what a side that only receives
     * (and so never times an acknowledgement of its own data) reports as its RTT. Only statistics read it.
     */
    private final RttEstimator pathRtt;
    private final AckScheduler acks;
    private final OutstandingPackets outstanding = new OutstandingPackets();
    private final InboundStream inbound;
    private final SendPath send;
    private final PacketReader reader = new PacketReader();
    private final ConnectionStats stats = new ConnectionStats();
    private final int recvId;
    private final int sendId;
    private final boolean initiator;
    private final int maxPayload;

    private final TimerTable timers = new TimerTable();
    private Phase phase;
    private Handshake handshake;

    private final LossRecovery recovery;
    private long lastReceiveNanos;

    private UtpConnection(UtpConfig config, int recvId, int sendId, boolean initiator, long nowNanos) {
        this.config = config;
        this.recvId = recvId & UtpWire.SEQ_MASK;
        this.sendId = sendId & UtpWire.SEQ_MASK;
        this.initiator = initiator;
        this.maxPayload = config.maxPayloadSize();
        this.cc = CongestionControls.create(config.congestionControl(),
                new CongestionParameters(maxPayload, Math.max(1, config.targetDelayNanos() / 1000)));
        this.rtt = new RttEstimator(config.minRtoNanos(), config.maxRtoNanos());
        this.pathRtt = new RttEstimator(config.minRtoNanos(), config.maxRtoNanos());
        this.acks = new AckScheduler(config.delayedAckTimeoutNanos());
        this.inbound = new InboundStream(config, out, acks, stats);
        this.recovery = new LossRecovery(outstanding, cc, rtt, stats);
        this.send = new SendPath(config, out, cc, rtt, acks, outstanding, inbound, stats, recovery,
                this.recvId, this.sendId, nowNanos);
        this.lastReceiveNanos = nowNanos;
    }

    /**
     * Opens a connection: creates the initiator side and queues its SYN for {@link #pollTransmit}.
     *
     * @param config       the settings
     * @param recvId       a random connection id; packets to this side carry it, the peer's carry
     *                     {@code recvId + 1}. The caller keeps it unique per remote address.
     * @param initialSeqNr the SYN's sequence number (BEP 29 uses 1; any value works)
     * @param nowNanos     the current time
     * @return the connection, in state {@link ConnectionState#SYN_SENT}
     */
    public static UtpConnection connect(UtpConfig config, int recvId, int initialSeqNr, long nowNanos) {
        UtpConnection c = new UtpConnection(config, recvId, recvId + 1, true, nowNanos);
        c.phase = new Phase.SynSent(nowNanos + config.connectTimeoutNanos());
        c.handshake = Handshake.initiator(initialSeqNr);
        c.send.start(initialSeqNr, -1);
        c.send.sendSyn(nowNanos);
        c.armTimers();
        return c;
    }

    /**
     * Accepts a connection: creates the acceptor side for a received SYN, answers it with a STATE and
     * reports {@link #CONNECTED} (both for the driver to collect).
     *
     * @param config       the settings
     * @param syn          the SYN datagram (the caller keeps ownership)
     * @param initialSeqNr this side's first sequence number (should be random)
     * @param nowNanos     the current time
     * @return the connection, in state {@link ConnectionState#CONNECTED}
     * @throws IllegalArgumentException if {@code syn} is not a valid SYN packet
     */
    public static UtpConnection accept(UtpConfig config, ByteBuf syn, int initialSeqNr, long nowNanos) {
        return acceptor(config, syn, initialSeqNr, nowNanos, true);
    }

    /**
     * Re-creates the acceptor side of a handshake this side answered and then forgot (a half-open
     * connection evicted under a SYN flood, remembered by the endpoint): the state {@link #accept} made,
     * without a second answer. The packet that revived it confirms the handshake and goes to
     * {@link #onPacket} next.
     *
     * @param initialSeqNr the sequence number the forgotten answer carried
     */
    public static UtpConnection revive(UtpConfig config, ByteBuf syn, int initialSeqNr, long nowNanos) {
        return acceptor(config, syn, initialSeqNr, nowNanos, false);
    }

    /** Whether a packet acknowledging {@code ackNr} confirms an acceptor's answer that carried {@code initialSeqNr}. */
    public static boolean confirmsHandshake(int ackNr, int initialSeqNr) {
        return Handshake.confirms(ackNr, initialSeqNr);
    }

    /**
     * The answer {@link #accept} would send to {@code syn}, built without a connection: what a listener
     * sends from its SYN cache (RFC 4987) when its half-open places are full, making the connection
     * with {@link #revive} only when the initiator's next packet confirms this answer.
     *
     * @param seqNr the sequence number the answer carries (the acceptor's first)
     * @return a new datagram; ownership passes to the caller
     * @throws IllegalArgumentException if {@code syn} is not a valid SYN packet
     */
    public static ByteBuf handshakeAnswer(UtpConfig config, ByteBuf syn, int seqNr, long nowNanos) {
        return Handshake.answer(config, syn, seqNr, nowNanos);
    }

    private static UtpConnection acceptor(UtpConfig config, ByteBuf syn, int initialSeqNr, long nowNanos, boolean answer) {
        PacketReader r = Handshake.readSyn(syn);
        int peerRecvId = r.connectionId();
        UtpConnection c = new UtpConnection(config, peerRecvId + 1, peerRecvId, false, nowNanos);
        // until the initiator proves its address, the half-open connection ends quietly after the connect timeout
        c.phase = new Phase.Established(nowNanos + Math.min(config.connectTimeoutNanos(), HALF_OPEN_LIFETIME_NANOS));
        c.send.start(initialSeqNr, r.windowSize());
        c.handshake = Handshake.acceptor(initialSeqNr);
        c.inbound.start(r.seqNr());
        c.stats.packetsReceived++;
        if (answer) {
            c.noteTimestamps(r, nowNanos);
            c.handshake.spendAnswer();
            c.send.sendState(nowNanos);
            c.recovery.restartRetransmissionTimer(nowNanos);
        }
        c.out.event(CONNECTED);
        c.armTimers();
        return c;
    }

    // ------------------------------------------------------------------------------------------------
    // Entry points

    /**
     * The driver is about to hand over several datagrams read together (one wake-up of its event
     * loop); {@link #endReadBatch} follows them. In between, in-order data is acknowledged once per
     * batch rather than every second packet (see {@link AckScheduler}); anything unusual still is at once.
     */
    @Override
    public void beginReadBatch() {
        acks.beginBatch();
    }

    /**
     * The batch begun by {@link #beginReadBatch} ended: the acknowledgement it held back is sent.
     *
     * @param nowNanos the current time
     */
    @Override
    public void endReadBatch(long nowNanos) {
        acks.endBatch();
        afterEvent(nowNanos);
        armTimers();
    }

    /**
     * Processes one received datagram addressed to this connection. Malformed datagrams are counted
     * and dropped; nothing is thrown for anything the peer sends.
     *
     * @param packet   the datagram's bytes (readable bytes); the caller keeps ownership
     * @param nowNanos the current time
     */
    public void onPacket(ByteBuf packet, long nowNanos) {
        if (phase instanceof Phase.Closed) {
            return;
        }
        receive(packet, nowNanos);
        armTimers();
    }

    private void receive(ByteBuf packet, long nowNanos) {
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
        if (phase instanceof Phase.TimeWait) {
            if (type == PacketType.DATA || type == PacketType.FIN) {
                send.sendState(nowNanos);
                phase = new Phase.TimeWait(nowNanos + timeWaitNanos(config)); // our acknowledgement was lost
            }
            return;
        }
        lastReceiveNanos = nowNanos;
        if (type == PacketType.RESET) {
            if (!send.plausibleAck(reader.ackNr())) {
                stats.implausiblePacketsDropped++; // a blind forgery: it does not acknowledge what we sent
                return;
            }
            onReset();
            return;
        }
        if (!handshake.peerConfirmed() && type != PacketType.SYN) {
            if (!handshake.confirmedBy(reader.ackNr())) {
                stats.implausiblePacketsDropped++; // not from whoever received our answer to the SYN
                return;
            }
            confirmPeer();
        }
        if (type == PacketType.STATE && phase.isEstablished() && !plausibleState()) {
            stats.implausiblePacketsDropped++;
            return;
        }
        if (phase instanceof Phase.SynSent) {
            if (!completeHandshake(nowNanos)) {
                return;
            }
        } else if (type == PacketType.SYN) {
            // our answer to the SYN was lost and the initiator sent it again
            noteTimestamps(reader, nowNanos);
            if (!handshake.peerConfirmed()) {
                handshake.synRepeated();
                repeatHandshakeAnswer(nowNanos);
            } else {
                send.sendState(nowNanos);
            }
            return;
        }
        noteTimestamps(reader, nowNanos);
        if (!send.onAck(reader, type, nowNanos)) {
            return;
        }
        if (initiator && type == PacketType.STATE && handshake.answers(reader.ackNr())
                && send.seqNr() == UtpWire.seqAdd(handshake.seqNr(), 1)) {
            // a repeated handshake answer: our confirmation was lost
            acks.requestImmediate();
        }
        if (type == PacketType.DATA || type == PacketType.FIN) {
            inbound.onPacket(type, reader.seqNr(), packet, reader.payloadOffset(), reader.payloadLength(), nowNanos);
        }
        afterEvent(nowNanos);
    }

    /**
     * Serves the timers that fell due (see {@link TimerTable.Timer}); calling it early is harmless.
     *
     * @param nowNanos the current time
     */
    @Override
    public void onTimer(long nowNanos) {
        if (phase instanceof Phase.Closed) {
            return;
        }
        serveTimers(nowNanos);
        armTimers();
    }

    /**
     * Returns when {@link #onTimer} must next be called, or {@link Long#MAX_VALUE} if no timer is
     * needed. Re-read it after every call into the connection.
     */
    @Override
    public long nextDeadlineNanos() {
        return timers.next();
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
        if (phase.isClosed() || send.isOutputShutdown()) {
            throw new IllegalStateException(phase.isClosed() ? "connection is closed" : "output is shut down");
        }
        return send.write(data);
    }

    /**
     * Makes every byte written so far eligible for sending and sends what the windows allow; a last
     * partial packet is sent rather than held back.
     *
     * @param nowNanos the current time
     */
    @Override
    public void flush(long nowNanos) {
        if (phase.isClosed()) {
            return;
        }
        send.flush();
        afterEvent(nowNanos);
        armTimers();
    }

    /**
     * Reports that the application processed {@code bytes} of delivered data, reopening the receive
     * window by as much. A window update is sent when the window grew enough to matter to the peer.
     *
     * @param bytes    bytes processed since the last call
     * @param nowNanos the current time
     */
    @Override
    public void consumed(int bytes, long nowNanos) {
        if (phase.isClosed() || bytes <= 0) {
            return;
        }
        inbound.consumed(bytes, nowNanos);
        long window = inbound.window();
        long threshold = Math.max(2L * maxPayload, Math.min(inbound.bufferLimit() / 4, WINDOW_UPDATE_CAP));
        long advertised = send.lastAdvertisedWindow();
        if (window - advertised >= threshold || (advertised < maxPayload && window >= maxPayload)) {
            acks.requestImmediate();
        }
        afterEvent(nowNanos);
        armTimers();
    }

    /**
     * Half-closes the connection: a FIN follows all bytes written so far (they are flushed). Data from
     * the peer keeps arriving until its own FIN.
     *
     * @param nowNanos the current time
     */
    public void shutdownOutput(long nowNanos) {
        if (phase.isClosed() || !send.shutdownOutput()) {
            return;
        }
        afterEvent(nowNanos);
        armTimers();
    }

    /**
     * Closes gracefully: sends a FIN after the queued bytes, discards further incoming data and
     * completes when both FINs are acknowledged, raising {@link #CLOSED} with no cause. Draining the send
     * buffer is bounded by the retransmission limit like any transfer; once our FIN is acknowledged,
     * the peer has the close timeout to send its own FIN, after which the connection is reset and
     * fails with {@link UtpException.Reason#CLOSE_TIMEOUT}. Before the handshake completes this is an
     * {@link #abort}.
     *
     * @param nowNanos the current time
     */
    public void close(long nowNanos) {
        if (phase.isClosed()) {
            return;
        }
        if (phase instanceof Phase.SynSent) {
            abort(nowNanos);
            return;
        }
        if (phase instanceof Phase.Established) {
            phase = phase.closeRequested();
            inbound.discardFurtherData();
        }
        send.shutdownOutput();
        afterEvent(nowNanos);
        armTimers();
    }

    /**
     * Closes at once: queues a RESET, drops every buffer and raises {@link #CLOSED} with no cause.
     *
     * @param nowNanos the current time
     */
    @Override
    public void abort(long nowNanos) {
        if (phase.isClosed()) {
            return;
        }
        send.sendReset(nowNanos);
        terminate(null);
        armTimers();
    }

    // ------------------------------------------------------------------------------------------------
    // Outputs, pulled by the driver

    /**
     * Why the connection closed: {@code null} after a graceful close or a local {@link #abort}, a
     * {@link UtpException} saying why otherwise (meaningful once {@link #CLOSED} was raised). After
     * {@link #CLOSED} every entry point is a no-op, except that a gracefully closed connection still
     * acknowledges the peer's retransmitted FIN until {@link #isTerminated()}.
     */
    public Throwable closeCause() {
        return phase instanceof Phase.Closed c ? c.cause() : null;
    }

    // ------------------------------------------------------------------------------------------------
    // Queries

    /** An acceptor's first sequence number, which its answer to the SYN carried (what the initiator's confirmation acknowledges). */
    public int handshakeSeqNr() {
        return handshake.seqNr();
    }

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

    /** Returns the life-cycle state: the public view of the connection's {@link Phase}. */
    public ConnectionState state() {
        return phase.state();
    }

    /** Returns whether the connection closed ({@link #CLOSED} was raised). */
    @Override
    public boolean isClosed() {
        return phase.isClosed();
    }

    /** Returns whether the connection needs no more packets or timers: the driver may forget it. */
    @Override
    public boolean isTerminated() {
        return phase instanceof Phase.Closed;
    }

    /**
     * Returns whether this connection would accept a RESET carrying {@code connectionId}: a peer may
     * reset with either id of the pair (libutp answers unknown packets with the id they carried).
     */
    public boolean acceptsReset(int connectionId) {
        return connectionId == recvId || connectionId == sendId;
    }

    /** Returns whether {@link #write} may be called and is worth calling (the send buffer has room). */
    @Override
    public boolean isWritable() {
        return send.isWritable() && !phase.isClosed();
    }

    /** Returns whether the output was shut down ({@link #shutdownOutput} or {@link #close}). */
    public boolean isOutputShutdown() {
        return send.isOutputShutdown();
    }

    /** Returns whether the peer's FIN was reached: no more data will be delivered. */
    public boolean isInputShutdown() {
        return inbound.isFinished();
    }

    /** Returns how many more bytes {@link #write} would accept now. */
    public long sendBufferSpace() {
        return send.sendBufferSpace();
    }

    /** Returns the send buffer's current size in bytes: it grows from the configured size (see {@link UtpConfig}). */
    public long sendBufferLimit() {
        return send.sendBufferLimit();
    }

    /** Returns the receive buffer's current size in bytes (memory, as charged): it grows from the configured size. */
    public long receiveBufferLimit() {
        return inbound.bufferLimit();
    }

    /**
     * Application bytes written that the peer has not acknowledged cumulatively (so not yet delivered to
     * its application, or at least not known to be): queued, in flight, lost or only selectively
     * acknowledged. Still meaningful after the connection closed: it is then what the connection lost.
     */
    public long unacknowledgedBytes() {
        return send.unacknowledgedBytes();
    }

    /** Whether the peer acknowledged our FIN, and with it every byte written before it. */
    public boolean isEndOfStreamAcknowledged() {
        return send.isFinAcked();
    }

    /**
     * Returns the congestion controller, for inspection (for example {@code LedbatPlusPlus.yields()});
     * only the connection may feed it events.
     */
    public CongestionControl congestionControl() {
        return cc;
    }

    /** A snapshot of the path: windows, flight, round trip and the controller's delay estimates. */
    public PathStats pathStats() {
        boolean timed = rtt.srttNanos() > 0;
        return new PathStats(cc.name(), cc.cwndBytes(), outstanding.bytesInFlight(), send.peerWindow(), inbound.window(),
                rtt.srttNanos(), rtt.rttVarNanos(), timed ? rtt.srttNanos() : pathRtt.srttNanos(),
                timed ? rtt.rttVarNanos() : pathRtt.rttVarNanos(), rtt.rtoNanos(), cc.queuingDelayMicros(),
                cc.baseDelayMicros());
    }

    /** Returns the live counters. */
    public ConnectionStats stats() {
        return stats;
    }

    // ------------------------------------------------------------------------------------------------
    // Receiving

    /** Sends the handshake answer again if the amplification budget allows; false if it does not. */
    private boolean repeatHandshakeAnswer(long nowNanos) {
        if (!handshake.spendAnswer()) {
            stats.handshakeAnswersWithheld++;
            return false;
        }
        send.sendState(nowNanos);
        return true;
    }

    /**
     * Whether a STATE is plausible: its sequence number is near the next one we expect from the peer
     * (a STATE carries the peer's next sequence number; older ones may arrive late) and its
     * acknowledgement is not more than a window behind. A forged STATE could otherwise close the
     * window (its {@code wnd_size}) and stall the stream.
     */
    private boolean plausibleState() {
        int fromExpected = UtpWire.seqDiff(reader.seqNr(), UtpWire.seqAdd(inbound.ackNr(), 1));
        if (fromExpected < -STATE_SEQ_SLACK || fromExpected > STATE_SEQ_SLACK) {
            return false;
        }
        return UtpWire.seqDiff(reader.ackNr(), send.lowestUnacknowledged()) >= -STATE_SEQ_SLACK;
    }

    /** Whether the peer proved it received our answer to its SYN (always true for the initiator). */
    public boolean isPeerConfirmed() {
        return handshake.peerConfirmed();
    }

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
        if (reader.type() != PacketType.STATE || !handshake.answers(reader.ackNr())) {
            return false;
        }
        phase = Phase.Established.CONFIRMED;
        inbound.start(UtpWire.seqAdd(reader.seqNr(), -1));
        // confirm at once, so that an acceptor with something to say may start
        acks.requestImmediate();
        out.event(CONNECTED);
        return true;
    }

    /**
     * The acceptor heard from the initiator after the SYN, so the initiator knows our first sequence
     * number: data may flow, and the handshake answer no longer needs repeating.
     */
    private void confirmPeer() {
        handshake.confirm();
        phase = phase.peerConfirmed();
        recovery.resetTimeouts();
        if (outstanding.isEmpty()) {
            recovery.stopRetransmissionTimer();
        }
    }

    private void noteTimestamps(PacketReader r, long nowNanos) {
        int theirTimestamp = r.timestampMicros();
        if (theirTimestamp != 0) {
            int delay = UtpWire.micros32(nowNanos) - theirTimestamp;
            send.noteReplyDelay(delay == 0 ? 1 : delay);
        }
        int ourDelay = r.timestampDifferenceMicros();
        if (ourDelay != 0) {
            cc.onDelaySample(ourDelay, nowNanos);
            if (theirTimestamp != 0) {
                // the two one-way delays: their sum is a round trip (see timestampRttNanos)
                long micros = Integer.toUnsignedLong(ourDelay + send.replyMicros());
                if (micros < MAX_TIMESTAMP_RTT_MICROS) {
                    inbound.onRttSample(micros * 1000);
                    pathRtt.onSample(micros * 1000);
                }
            }
        }
    }

    private void onReset() {
        if (phase instanceof Phase.SynSent) {
            terminate(new UtpException(UtpException.Reason.CONNECTION_REFUSED, "connection refused by peer"));
        } else if (inbound.isFinished() && send.isFinSent() && send.onlyFinUnacked()) {
            // the peer saw our FIN (it acknowledged everything before it) and is gone: only our last
            // acknowledgement of its FIN, or its acknowledgement of ours, was lost
            terminate(null);
        } else {
            terminate(new UtpException(UtpException.Reason.RESET_BY_PEER, "connection reset by peer"));
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Sending

    private void afterEvent(long nowNanos) {
        if (phase.isClosed()) {
            return;
        }
        send.trySend(canSend(), nowNanos);
        if (recovery.tailLossProbeDeadline() == NONE) {
            send.armTailLossProbe(canSend(), nowNanos);
        }
        if (phase.isEstablished() && acks.isDue(nowNanos)) {
            send.sendState(nowNanos);
        }
        send.updateWritability(phase.isClosed());
        maybeFinish(nowNanos);
    }

    /** Whether data may go out: the handshake is complete and the peer proved its address. */
    private boolean canSend() {
        return phase.isEstablished() && handshake.peerConfirmed();
    }

    // ------------------------------------------------------------------------------------------------
    // Timers and closing

    /**
     * Writes the timer table from the phase and what the parts ask for: the end of every call into the
     * connection, and the only place its timers are set.
     */
    private void armTimers() {
        timers.set(Timer.PHASE, phase.deadline());
        boolean established = phase.isEstablished();
        boolean closed = phase.isClosed();
        timers.set(Timer.IDLE, established && config.idleTimeoutNanos() > 0
                ? lastReceiveNanos + config.idleTimeoutNanos() : NONE);
        timers.set(Timer.RETRANSMISSION, closed ? NONE : recovery.retransmissionDeadline());
        timers.set(Timer.TAIL_LOSS_PROBE, closed ? NONE : recovery.tailLossProbeDeadline());
        timers.set(Timer.PERSIST, closed ? NONE : send.persistDeadline());
        timers.set(Timer.KEEP_ALIVE, established && config.keepAliveIntervalNanos() > 0 && handshake.peerConfirmed()
                ? send.lastSendNanos() + config.keepAliveIntervalNanos() : NONE);
        timers.set(Timer.PACING, closed ? NONE : send.pacingDeadline());
        timers.set(Timer.DELAYED_ACK, closed ? NONE : acks.deadlineNanos());
    }

    /** Serves what expired, in {@link Timer}'s order; a phase deadline or a failure ends the round. */
    private void serveTimers(long nowNanos) {
        if (timers.isExpired(Timer.PHASE, nowNanos)) {
            onPhaseDeadline(nowNanos);
            return;
        }
        if (phase instanceof Phase.TimeWait) {
            return;
        }
        if (timers.isExpired(Timer.IDLE, nowNanos)) {
            failAndReset(UtpException.Reason.IDLE_TIMEOUT,
                    "idle timeout: nothing received from the peer for " + millis(config.idleTimeoutNanos()), nowNanos);
            return;
        }
        if (timers.isExpired(Timer.RETRANSMISSION, nowNanos)) {
            onRetransmissionTimeout(nowNanos);
            if (phase.isClosed()) {
                return;
            }
        } else if (timers.isExpired(Timer.TAIL_LOSS_PROBE, nowNanos)) {
            send.onTailLossProbe(canSend(), nowNanos);
        }
        if (timers.isExpired(Timer.PERSIST, nowNanos)) {
            send.onPersistTimer();
        }
        // what was just sent also keeps the connection alive: the deadline is read again
        if (canSend() && config.keepAliveIntervalNanos() > 0
                && nowNanos - send.lastSendNanos() >= config.keepAliveIntervalNanos()) {
            send.sendState(nowNanos);
        }
        // pacing and the delayed acknowledgement are served by sending what is due
        afterEvent(nowNanos);
    }

    /** The phase's deadline passed: the handshake, the half-open wait or the close failed, or TIME_WAIT is over. */
    private void onPhaseDeadline(long nowNanos) {
        if (phase instanceof Phase.TimeWait) {
            terminate(null);
        } else if (phase instanceof Phase.Closing c && c.halfOpenDeadline() > nowNanos) {
            failAndReset(UtpException.Reason.CLOSE_TIMEOUT,
                    "graceful close did not complete within " + millis(config.closeTimeoutNanos()), nowNanos);
        } else if (initiator) {
            failAndReset(UtpException.Reason.CONNECT_TIMEOUT,
                    "connect timed out after " + millis(config.connectTimeoutNanos()), nowNanos);
        } else {
            // a half-open connection whose initiator never proved its address: no RESET to it
            terminate(new UtpException(UtpException.Reason.CONNECT_TIMEOUT,
                    "the initiator did not confirm the handshake in time"));
        }
    }

    private void onRetransmissionTimeout(long nowNanos) {
        boolean synSent = phase instanceof Phase.SynSent;
        switch (recovery.onRetransmissionTimeout(!handshake.peerConfirmed(), synSent, config.maxRetransmits(), nowNanos)) {
            case NOTHING, RESEND_LOST -> {
            }
            case GIVE_UP -> {
                String what = synSent ? "SYN" : !handshake.peerConfirmed() ? "handshake answer" : "packet " + outstanding.firstSeq();
                failAndReset(UtpException.Reason.RETRANSMIT_LIMIT, "peer stopped responding: " + what + " unacknowledged after "
                        + config.maxRetransmits() + " retransmissions", nowNanos);
            }
            case REPEAT_HANDSHAKE_ANSWER -> {
                if (!repeatHandshakeAnswer(nowNanos)) {
                    recovery.stopRetransmissionTimer(); // the budget is spent: wait for a repeated SYN or the connect timeout
                }
            }
            case RETRANSMIT_FIRST -> send.transmit(outstanding.firstSeq(), nowNanos);
        }
    }

    private void maybeFinish(long nowNanos) {
        if (!phase.isEstablished() || !send.isFinAcked()) {
            return;
        }
        if (!inbound.isFinished()) {
            phase = phase.awaitPeerFin(nowNanos, config.closeTimeoutNanos());
            return;
        }
        releaseBuffers();
        phase = new Phase.TimeWait(nowNanos + timeWaitNanos(config));
        notifyClosed(null);
    }

    /**
     * How long a gracefully closed connection keeps acknowledging the peer's retransmissions after the
     * last one arrived (its TIME_WAIT). The peer's only way to learn that its last packets arrived is our
     * acknowledgement, and its retransmissions are at most one maximum RTO apart, so twice that (like
     * TCP's TIME_WAIT of two segment lifetimes) outlasts every retransmission it will make.
     */
    private static long timeWaitNanos(UtpConfig config) {
        return 2 * config.maxRtoNanos();
    }

    private void failAndReset(UtpException.Reason reason, String message, long nowNanos) {
        send.sendReset(nowNanos);
        terminate(new UtpException(reason, message));
    }

    private void terminate(Throwable cause) {
        boolean wasOpen = !phase.isClosed();
        phase = new Phase.Closed(wasOpen ? cause : null);
        releaseBuffers();
        if (wasOpen) {
            notifyClosed(cause);
        }
    }

    /** The connection closed for the application (it entered TIME_WAIT or ended): reported once. */
    private void notifyClosed(Throwable cause) {
        send.notWritable();
        out.closed(cause);
    }

    private void releaseBuffers() {
        send.releaseAll();
        inbound.releaseAll();
    }

    private static String millis(long nanos) {
        return Duration.ofNanos(nanos).toMillis() + " ms";
    }
}
