package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.cc.CongestionControl;
import io.ferry.transport.ledbat.cc.CongestionControls;
import io.ferry.transport.ledbat.cc.CongestionParameters;
import io.ferry.transport.ledbat.core.TimerTable.Timer;
import io.ferry.transport.ledbat.wire.PacketReader;
import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.PacketValidity;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;

/**
 * One uTP (BEP 29) connection as a sans-I/O state machine: it consumes received datagrams, the
 * application's bytes and the current time, and produces datagrams, delivered bytes, events and its
 * next timer deadline. It owns no socket, no thread and no clock, and it never calls out: its driver
 * pulls what it produced, in the manner of quinn-proto's {@code poll_transmit} and quiche's
 * {@code send}, so no code of the driver runs in the middle of the connection's handling of an event.
 *
 * <h2>Driving it</h2>
 * As every connection on the engine ({@link EngineConnection}), created with {@link #connect} (queues a SYN)
 * or {@link #accept} (queues the answer to a SYN).
 *
 * <h2>What it implements</h2>
 * BEP 29's handshake, data, selective acknowledgements, FIN and RESET, with RFC 6298's retransmission
 * timer, loss detection by transmission order, tail-loss probes (RFC 8985), pluggable congestion control
 * with pacing, flow control in both directions, half-close, keep-alive and idle timeout; sequence
 * arithmetic wraps at 2^16. Its parts: {@link Handshake}, {@link SendPath}, {@link LossRecovery},
 * {@link InboundStream}, {@link AckScheduler}, {@link Timestamps}, {@link PacketScreen}, its
 * {@link ConnectionIds}, its {@link Phase} and its {@link ConnectionTimers}; the application reads its byte
 * streams through {@link ByteStreams}. Each mechanism, and what keeps heavy
 * random loss cheap, in docs/utp-protocol.md.
 */
public final class UtpConnection extends AbstractEngineConnection {
    private static final long NONE = Long.MAX_VALUE;

    private final UtpConfig config;
    private final CongestionControl cc;
    private final RttEstimator rtt;
    private final Timestamps timestamps;
    private final AckScheduler acks;
    private final OutstandingPackets outstanding;
    private final InboundStream inbound;
    private final SendPath send;
    private final PacketReader reader = new PacketReader();
    private final ConnectionStats stats = new ConnectionStats();
    private final ConnectionIds ids;
    private final ByteStreams streams;

    private final Handshake handshake;
    private final LossRecovery recovery;
    private final ConnectionTimers timers;
    private Phase phase;
    /** {@link #phase}'s state and deadline, read on every packet and call; set with it by {@link #enter} only. */
    private ConnectionState state;
    private long phaseDeadline;
    private long lastReceiveNanos;
    private boolean inReadBatch;

    private UtpConnection(UtpConfig config, ConnectionIds ids, Handshake handshake, long nowNanos) {
        this.config = config;
        this.ids = ids;
        this.handshake = handshake;
        this.outstanding = new OutstandingPackets(new PacketBuffers(config.allocator(), config.packetSize()));
        this.cc = CongestionControls.create(config.congestionControl(),
                new CongestionParameters(config.maxPayloadSize(), Math.max(1, config.targetDelayNanos() / 1000)));
        this.rtt = new RttEstimator(config.minRtoNanos(), config.maxRtoNanos());
        this.timestamps = new Timestamps(config);
        this.acks = new AckScheduler(config.delayedAckTimeoutNanos());
        this.inbound = new InboundStream(config, out, acks, stats);
        this.recovery = new LossRecovery(outstanding, cc, rtt, stats);
        this.send = new SendPath(config, out, cc, rtt, acks, outstanding, inbound, stats, recovery, timestamps, ids, nowNanos);
        this.timers = new ConnectionTimers(config, handshake, recovery, send, acks);
        this.streams = new ByteStreams(send, inbound);
        this.lastReceiveNanos = nowNanos;
    }

    /**
     * Opens a connection: creates the initiator side and queues its SYN for {@link #pollTransmit}.
     *
     * @param config       the settings
     * @param recvId       a random connection id; packets to this side carry it, the peer's carry
     *                     {@code recvId + 1}. The caller keeps it unique per remote address.
     * @param initialSeqNr the SYN's sequence number (BEP 29 uses 1; any value works)
     * @return the connection, in state {@link ConnectionState#SYN_SENT}
     */
    public static UtpConnection connect(UtpConfig config, int recvId, int initialSeqNr, long nowNanos) {
        UtpConnection c = new UtpConnection(config, ConnectionIds.initiator(recvId), Handshake.initiator(initialSeqNr), nowNanos);
        c.enter(new Phase.SynSent(nowNanos + config.connectTimeoutNanos()));
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
     * @return the connection, in state {@link ConnectionState#CONNECTED}
     * @throws IllegalArgumentException if {@code syn} is not a valid SYN packet
     */
    public static UtpConnection accept(UtpConfig config, ByteBuf syn, int initialSeqNr, long nowNanos) {
        return acceptor(config, syn, initialSeqNr, nowNanos, true);
    }

    /**
     * Re-creates the acceptor side of a handshake this side answered and then forgot (a half-open
     * connection evicted under a SYN flood, remembered by the endpoint; see {@link SynAnswer}): the state
     * {@link #accept} made, without a second answer. The packet that revived it confirms the handshake
     * and goes to {@link #onPacket} next.
     *
     * @param initialSeqNr the sequence number the forgotten answer carried
     */
    public static UtpConnection revive(UtpConfig config, ByteBuf syn, int initialSeqNr, long nowNanos) {
        return acceptor(config, syn, initialSeqNr, nowNanos, false);
    }

    private static UtpConnection acceptor(UtpConfig config, ByteBuf syn, int initialSeqNr, long nowNanos, boolean answer) {
        PacketReader r = SynAnswer.readSyn(syn);
        UtpConnection c = new UtpConnection(config, ConnectionIds.acceptor(r.connectionId()), Handshake.acceptor(initialSeqNr), nowNanos);
        // until the initiator proves its address, the half-open connection ends quietly after the connect timeout
        c.enter(new Phase.Established(nowNanos + Math.min(config.connectTimeoutNanos(), Handshake.HALF_OPEN_LIFETIME_NANOS)));
        c.send.start(initialSeqNr, r.windowSize());
        c.inbound.start(r.seqNr());
        c.stats.packetsReceived++;
        if (answer) {
            c.noteTimestamps(r, nowNanos);
            c.handshake.answer(c.send, c.stats, nowNanos);
            c.recovery.restartRetransmissionTimer(nowNanos);
        }
        c.out.event(CONNECTED);
        c.armTimers();
        return c;
    }

    // ------------------------------------------------------------------------------------------------
    // Entry points

    /**
     * The datagrams of a read batch arrived together: in-order data is acknowledged ({@link AckScheduler}) and
     * delivered ({@link GatheredPayloads}) at its end, and what they let go is sent and the timers set once then.
     */
    @Override
    public void beginReadBatch() {
        inReadBatch = true;
        acks.beginBatch();
        inbound.beginBatch();
    }

    @Override
    public void endReadBatch(long nowNanos) {
        inReadBatch = false;
        inbound.endBatch();
        acks.endBatch();
        endCall(nowNanos);
    }

    /**
     * Processes one received datagram addressed to this connection. Malformed datagrams are counted and dropped;
     * nothing is thrown for anything the peer sends. {@code parsed}: the header as the reader that routed the
     * datagram parsed it (one parse per datagram), or {@code null}; one not {@link PacketReader#isViewOf a view of}
     * {@code packet} is ignored.
     *
     * @param packet the datagram's bytes (readable bytes); the caller keeps ownership
     */
    public void onPacket(ByteBuf packet, PacketReader parsed, long nowNanos) {
        if (state == ConnectionState.TERMINATED) {
            return;
        }
        PacketReader reader = parsed != null && parsed.isViewOf(packet) ? parsed : this.reader;
        if (reader != parsed && reader.wrap(packet) != PacketValidity.VALID) {
            stats.malformedPacketsDropped++;
        } else {
            receive(packet, reader, nowNanos);
        }
        if (!inReadBatch) {
            armTimers();
        }
    }

    private void receive(ByteBuf packet, PacketReader reader, long nowNanos) {
        PacketType type = reader.type();
        if (!ids.addressedToUs(type, reader.connectionId())) {
            return;
        }
        stats.packetsReceived++;
        if (state == ConnectionState.TIME_WAIT) {
            if (type == PacketType.DATA || type == PacketType.FIN) {
                send.sendState(nowNanos);
                enter(Phase.TimeWait.from(nowNanos, config.maxRtoNanos())); // our acknowledgement was lost
            }
            return;
        }
        lastReceiveNanos = nowNanos;
        switch (PacketScreen.of(reader, state, handshake, send, inbound)) {
            case IMPLAUSIBLE -> {
                stats.implausiblePacketsDropped++;
                return;
            }
            case RESET -> {
                terminate(phase.resetCause(inbound.isFinished() && send.isFinSent() && send.onlyFinUnacked()));
                return;
            }
            case NOT_THE_ANSWER -> {
                return;
            }
            case REPEATED_SYN -> {
                noteTimestamps(reader, nowNanos);
                handshake.onRepeatedSyn(send, stats, nowNanos);
                return;
            }
            case COMPLETES_HANDSHAKE -> completeHandshake(reader.seqNr());
            case CONFIRMS_PEER -> confirmPeer();
            case ACCEPT -> {
            }
        }
        noteTimestamps(reader, nowNanos);
        if (!send.onAck(reader, type, timestamps.rttNanos(), nowNanos)) {
            return;
        }
        if (ids.initiator() && type == PacketType.STATE && handshake.answers(reader.ackNr())
                && send.seqNr() == UtpWire.seqAdd(handshake.seqNr(), 1)) {
            // a repeated handshake answer: our confirmation was lost
            acks.requestImmediate();
        }
        if (type == PacketType.DATA || type == PacketType.FIN) {
            inbound.onPacket(type, reader.seqNr(), packet, reader.payloadOffset(), reader.payloadLength(), nowNanos);
        }
        if (!inReadBatch) {
            afterEvent(nowNanos);
        }
    }

    /** Serves the timers that fell due, in {@link TimerTable.Timer}'s order. */
    @Override
    public void onTimer(long nowNanos) {
        if (state == ConnectionState.TERMINATED) {
            return;
        }
        serveTimers(nowNanos);
        armTimers();
    }

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
        if (state.isClosed() || send.isOutputShutdown()) {
            throw new IllegalStateException(state.isClosed() ? "connection is closed" : "output is shut down");
        }
        return send.write(data);
    }

    /**
     * Makes every byte written so far eligible for sending and sends what the windows allow; a last
     * partial packet is sent rather than held back.
     */
    @Override
    public void flush(long nowNanos) {
        if (state.isClosed()) {
            return;
        }
        send.flush();
        endCall(nowNanos);
    }

    /**
     * Reports that the application processed {@code bytes} of delivered data, reopening the receive
     * window by as much. A window update is sent when the window grew enough to matter to the peer.
     *
     * @param bytes    bytes processed since the last call
     */
    @Override
    public void consumed(int bytes, long nowNanos) {
        if (state.isClosed() || bytes <= 0) {
            return;
        }
        inbound.consumed(bytes, nowNanos);
        if (inbound.windowUpdateDue(send.lastAdvertisedWindow())) {
            acks.requestImmediate();
        }
        endCall(nowNanos);
    }

    /**
     * Half-closes the connection: a FIN follows all bytes written so far (they are flushed). Data from
     * the peer keeps arriving until its own FIN.
     */
    public void shutdownOutput(long nowNanos) {
        if (state.isClosed() || !send.shutdownOutput()) {
            return;
        }
        endCall(nowNanos);
    }

    /**
     * Closes gracefully: sends a FIN after the queued bytes, discards further incoming data and
     * completes when both FINs are acknowledged, raising {@link #CLOSED} with no cause. Draining the send
     * buffer is bounded by the retransmission limit like any transfer; once our FIN is acknowledged,
     * the peer has the close timeout to send its own FIN, after which the connection is reset and
     * fails with {@link UtpException.Reason#CLOSE_TIMEOUT}. Before the handshake completes this is an
     * {@link #abort}.
     */
    public void close(long nowNanos) {
        if (state.isClosed()) {
            return;
        }
        if (state == ConnectionState.SYN_SENT) {
            abort(nowNanos);
            return;
        }
        if (phase instanceof Phase.Established) {
            enter(phase.closeRequested());
            inbound.discardFurtherData();
        }
        send.shutdownOutput();
        endCall(nowNanos);
    }

    /** Closes at once: queues a RESET, drops every buffer and raises {@link #CLOSED} with no cause. */
    @Override
    public void abort(long nowNanos) {
        if (state.isClosed()) {
            return;
        }
        send.sendReset(nowNanos);
        terminate(null);
        armTimers();
    }

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

    /** The connection's pair of ids and which side sent the SYN. */
    public ConnectionIds ids() {
        return ids;
    }

    /** Returns the life-cycle state: the public view of the connection's {@link Phase}. */
    public ConnectionState state() {
        return state;
    }

    @Override
    public boolean isClosed() {
        return state.isClosed();
    }

    @Override
    public boolean isTerminated() {
        return state == ConnectionState.TERMINATED;
    }

    /** Whether {@link #write} may be called and is worth calling (the send buffer has room). */
    @Override
    public boolean isWritable() {
        return send.isWritable() && !state.isClosed();
    }

    /** The two byte streams as the application sees them: buffer room and sizes, unacknowledged bytes, shut ends. */
    public ByteStreams streams() {
        return streams;
    }

    /** Whether the peer proved it received our answer to its SYN (always true for the initiator). */
    public boolean isPeerConfirmed() {
        return handshake.peerConfirmed();
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
        return PathStats.of(cc, rtt, timestamps.pathRtt(), outstanding.bytesInFlight(), send.peerWindow(), inbound.window());
    }

    /** Returns the live counters. */
    public ConnectionStats stats() {
        return stats;
    }

    // ------------------------------------------------------------------------------------------------
    // Receiving

    /** Completes the initiator's handshake on the acceptor's STATE ({@code seqNr}), whose sequence number its first data packet will carry. */
    private void completeHandshake(int seqNr) {
        enter(Phase.Established.CONFIRMED);
        inbound.start(UtpWire.seqAdd(seqNr, -1));
        // confirm at once, so that an acceptor with something to say may start
        acks.requestImmediate();
        out.event(CONNECTED);
    }

    /**
     * The acceptor heard from the initiator after the SYN, so the initiator knows our first sequence
     * number: data may flow, and the handshake answer no longer needs repeating.
     */
    private void confirmPeer() {
        handshake.confirm();
        enter(phase.peerConfirmed());
        recovery.resetTimeouts();
        if (outstanding.isEmpty()) {
            recovery.stopRetransmissionTimer();
        }
    }

    /** The packet's timestamps: the echo, the delay sample LEDBAT reads (BEP 29) and a round trip for the receive buffer. */
    private void noteTimestamps(PacketReader r, long nowNanos) {
        timestamps.onPacket(r, nowNanos);
        int ourDelay = r.timestampDifferenceMicros();
        if (ourDelay != 0) {
            cc.onDelaySample(ourDelay, nowNanos);
        }
        if (timestamps.rttNanos() > 0) {
            inbound.onRttSample(timestamps.rttNanos());
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Sending

    /** The end of every call that may have let something go: sends what is due, then sets the timers. */
    private void endCall(long nowNanos) {
        afterEvent(nowNanos);
        armTimers();
    }

    private void afterEvent(long nowNanos) {
        if (state.isClosed()) {
            return;
        }
        send.trySend(canSend(), nowNanos);
        if (recovery.tailLossProbeDeadline() == NONE) {
            send.armTailLossProbe(canSend(), nowNanos);
        }
        if (state.isEstablished() && acks.isDue(nowNanos)) {
            send.sendState(nowNanos);
        }
        send.updateWritability(state.isClosed());
        maybeFinish(nowNanos);
    }

    /** Whether data may go out: the handshake is complete and the peer proved its address. */
    private boolean canSend() {
        return state.isEstablished() && handshake.peerConfirmed();
    }

    // ------------------------------------------------------------------------------------------------
    // Timers and closing

    /**
     * Moves to {@code next}: the one place a phase changes. Per-packet checks read the state, an enum constant, not
     * the phase's type, whose every change deoptimized the JIT's code (bench/results/2026-12-02-phase-state).
     */
    private void enter(Phase next) {
        phase = next;
        state = next.state();
        phaseDeadline = next.deadline();
    }

    /** The end of every call into the connection: its timers, from its phase and its parts ({@link ConnectionTimers}). */
    private void armTimers() {
        timers.arm(state, phaseDeadline, lastReceiveNanos);
    }

    /** Serves what expired, in {@link Timer}'s order; a phase deadline or a failure ends the round. */
    private void serveTimers(long nowNanos) {
        if (timers.isExpired(Timer.PHASE, nowNanos)) {
            onPhaseDeadline(nowNanos);
            return;
        }
        if (state == ConnectionState.TIME_WAIT) {
            return;
        }
        if (timers.isExpired(Timer.IDLE, nowNanos)) {
            failAndReset(UtpException.idleTimeout(config.idleTimeoutNanos()), nowNanos);
            return;
        }
        if (timers.isExpired(Timer.RETRANSMISSION, nowNanos)) {
            onRetransmissionTimeout(nowNanos);
            if (state.isClosed()) {
                return;
            }
        } else if (timers.isExpired(Timer.TAIL_LOSS_PROBE, nowNanos)) {
            send.onTailLossProbe(canSend(), nowNanos);
        }
        if (timers.isExpired(Timer.PERSIST, nowNanos)) {
            send.onPersistTimer();
        }
        if (canSend() && timers.keepAliveDue(nowNanos)) {
            send.sendState(nowNanos);
        }
        // pacing and the delayed acknowledgement are served by sending what is due
        afterEvent(nowNanos);
    }

    /** The phase's deadline passed: the handshake, the half-open wait or the close failed, or TIME_WAIT is over. */
    private void onPhaseDeadline(long nowNanos) {
        Phase.Expiry expiry = phase.expire(nowNanos, config);
        if (expiry.reset()) {
            send.sendReset(nowNanos);
        }
        terminate(expiry.cause());
    }

    private void onRetransmissionTimeout(long nowNanos) {
        boolean synSent = state == ConnectionState.SYN_SENT;
        switch (recovery.onRetransmissionTimeout(!handshake.peerConfirmed(), synSent, config.maxRetransmits(), nowNanos)) {
            case NOTHING, RESEND_LOST -> {
            }
            case GIVE_UP -> {
                String what = synSent ? "SYN" : !handshake.peerConfirmed() ? "handshake answer" : "packet " + outstanding.firstSeq();
                failAndReset(UtpException.retransmitLimit(what, config.maxRetransmits()), nowNanos);
            }
            case REPEAT_HANDSHAKE_ANSWER -> {
                if (!handshake.answer(send, stats, nowNanos)) {
                    recovery.stopRetransmissionTimer(); // the budget is spent: wait for a repeated SYN or the connect timeout
                }
            }
            case RETRANSMIT_FIRST -> send.transmit(outstanding.firstSeq(), nowNanos);
        }
    }

    private void maybeFinish(long nowNanos) {
        if (!state.isEstablished() || !send.isFinAcked()) {
            return;
        }
        if (!inbound.isFinished()) {
            enter(phase.awaitPeerFin(nowNanos, config.closeTimeoutNanos()));
            return;
        }
        releaseBuffers();
        enter(Phase.TimeWait.from(nowNanos, config.maxRtoNanos()));
        notifyClosed(null);
    }

    private void failAndReset(UtpException cause, long nowNanos) {
        send.sendReset(nowNanos);
        terminate(cause);
    }

    private void terminate(Throwable cause) {
        boolean wasOpen = !state.isClosed();
        enter(new Phase.Closed(wasOpen ? cause : null));
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
}
