package io.ferry.transport.udt;

import io.ferry.transport.TransportStatistics;
import io.ferry.transport.spi.ReadLoop;
import io.ferry.transport.udp.engine.EngineChannel;
import io.ferry.transport.udp.engine.EngineLinger;
import io.ferry.transport.udt.proto.core.UdtConnection;
import io.ferry.transport.udt.proto.core.UdtException;
import io.ferry.transport.udt.proto.wire.Handshake;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One UDT connection as a Netty {@link Channel}, on Ferry's own UDT4 engine ({@code udt-proto}):
 * ordered, reliable bytes with writability-based backpressure, {@code autoRead}, half-close in the
 * default framed mode, abortive close; a leaf over the engine's {@link EngineChannel}, driving a sans-I/O
 * {@link UdtConnection} on the event loop of the {@link UdtEndpoint} whose UDP socket carries it. No native code.
 *
 * <p>How bytes travel is the {@link UdtSettings.StreamMode}: {@code FRAMED} (Ferry at both ends: a
 * 4-byte length before each write, a zero length ends the stream, so half-close works), {@code RAW} (a
 * plain UDT4 byte stream, as any UDT application speaks it) or {@code MESSAGE} (UDT4 messages, each write
 * one message). A graceful {@code close()} sends what was written, then UDT's shutdown once the peer has
 * acknowledged every byte ({@link UdtLinger}).
 */
public final class UdtSocketChannel extends EngineChannel<UdtConnection, UdtEndpoint> {

    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 256);

    /** The least time a closed channel's connection waits for the peer's end of stream. */
    static final long PEER_END_WAIT_NANOS = 30_000_000_000L;

    /** How long a connection whose both ends are done waits at most for the ACK2 of its final ACK. */
    static final long BOTH_ENDED_LINGER_NANOS = 1_000_000_000L;

    private final UdtChannelConfig config;
    private final UdtTransport transport;
    private final UdtSettings settings;
    private final UdtFraming framing;
    private boolean outputShutdown;
    private boolean awaitingPeerEnd;
    /** Bytes of Ferry's frame headers sent: not the application's, so not in the statistics' bytes sent. */
    private long framingBytes;

    /** A client connection, not yet connected. */
    UdtSocketChannel(UdtTransport transport, UdtSettings settings) {
        super(null, "UDT", null, null, settings.bindAddress);
        this.transport = transport;
        this.settings = settings;
        this.framing = new UdtFraming(settings.mode);
        this.config = new UdtChannelConfig(this, settings, this::autoReadCleared);
    }

    /** An accepted connection. */
    UdtSocketChannel(UdtServerChannel parent, UdtTransport transport, UdtSettings settings, UdtEndpoint endpoint,
                     InetSocketAddress remote) {
        super(parent, "UDT", endpoint, remote, null);
        this.transport = transport;
        this.settings = settings;
        this.framing = new UdtFraming(settings.mode);
        this.config = new UdtChannelConfig(this, settings, this::autoReadCleared);
    }

    // ------------------------------------------------------------------ wiring used by the endpoint

    void attach(UdtConnection connection) {
        this.connection = connection;
        connection.setMaxBandwidth(config.maxBandwidth());
    }

    UdtConnection connection() {
        return connection;
    }

    InetSocketAddress remote() {
        return remote;
    }

    UdtSettings settings() {
        return settings;
    }

    UdtEndpoint endpoint() {
        return endpoint;
    }

    UdtFraming framing() {
        return framing;
    }

    /** Whether a datagram from {@code from} may be this connection's (UDT checks the peer's address too). */
    boolean accepts(InetSocketAddress from) {
        return remote != null && remote.equals(from);
    }

    @Override
    protected void onDatagram(ByteBuf datagram, InetSocketAddress from, long now) {
        connection.onDatagram(datagram, now);
    }

    /** ICMP said the peer's port is unreachable: a connect in progress is refused (a rendezvous peer may not be up yet). */
    @Override
    protected void portUnreachable() {
        if (connectPromise != null && !connectPromise.isDone() && !settings.rendezvous) {
            failConnect(new ConnectException("Connection refused: nothing listens for UDT at " + remote));
        }
    }

    // ------------------------------------------------------------------ Channel

    @Override
    public UdtServerChannel parent() {
        return (UdtServerChannel) super.parent();
    }

    @Override
    public UdtChannelConfig config() {
        return config;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    protected void closeConnection(boolean wasActive) {
        if (wasActive && framing.framed() && outputShutdown && connection.bufferedBytes() == 0 && !framing.endSeen()) {
            awaitPeerEnd();
        } else if (wasActive && (connection.bufferedBytes() == 0 || onlyOurEndUnconfirmed())) {
            // all of ours acknowledged (or all but our end-of-stream frame, the peer having ended too): the
            // shutdown waits for the ACK2 of our final ACK, for it carries none, and a peer whose last data
            // we hold but never heard acknowledged takes it for lost; and for our end, without which a
            // peer still lingering waits for it until it takes us for gone
            connection.close(bothEndedLingerNanos(), endpoint.now());
        } else if (wasActive) {
            connection.close(0, endpoint.now()); // what is queued leaves if it can; no waiting here
        } else {
            connection.abort(endpoint.now());
        }
    }

    /**
     * Our end of the stream was acknowledged and the channel closed, but the peer's side is still open:
     * UDT's shutdown would end both directions at once, so the connection stays (as TCP's FIN_WAIT_2)
     * until the peer's end-of-stream frame arrives or {@link #PEER_END_WAIT_NANOS} passes. Data that
     * still comes for the closed channel resets the connection, as TCP resets it. A striped channel's
     * members end one by one so.
     */
    /**
     * Whether both ends wrote their end of stream and the peer acknowledged all of ours but the end
     * itself. A lingering close completes so ({@link UdtLinger}, the peer may be gone); shut down at once,
     * a lost end-of-stream frame (or final ACK) through 25 % loss left the peer lingering until it took
     * us for gone after 10 s, or reporting its delivered bytes lost.
     */
    private boolean onlyOurEndUnconfirmed() {
        return framing.framed() && outputShutdown && framing.endSeen() && connection.bufferedBytes() <= UdtFraming.HEADER;
    }

    /**
     * The linger of a connection whose both ends are done: {@link #BOTH_ENDED_LINGER_NANOS}, or long enough
     * for a few of UDT's retransmission timeouts on a slow path (its EXP timer resends a tail packet after
     * a round trip and four deviations, then ever later). The channel is closed already; only the
     * connection lingers.
     */
    private long bothEndedLingerNanos() {
        long expiry = (connection.rttMicros() + 4L * connection.rttVarianceMicros()) * 1000L;
        return Math.max(BOTH_ENDED_LINGER_NANOS, 16 * expiry);
    }

    private void awaitPeerEnd() {
        awaitingPeerEnd = true;
        endpoint.loop().schedule(() -> {
            if (!connection.isClosed()) {
                connection.close(0, endpoint.now());
                endpoint.afterCall(this);
            }
        }, Math.max(PEER_END_WAIT_NANOS, config.getLinger().toNanos()), TimeUnit.NANOSECONDS);
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        if (connection == null || !active || outputShutdown && lingering() == null) {
            throw new ClosedChannelException();
        }
        if (connection.isClosed()) {
            // the peer closed; its last bytes may still be unread here, so the channel stays open for them
            for (Object msg; (msg = in.current()) != null; ) {
                in.remove(new IOException("the UDT peer at " + remote + " closed the connection"));
            }
            return;
        }
        if (UdtOutbound.write(in, this)) {
            connection.flush(endpoint.now());
        }
        endpoint.afterCall(this);
    }

    @Override
    protected Object filterOutboundMessage(Object msg) throws ClosedChannelException {
        if (outputShutdown || lingering() != null && lingering().endQueued()) {
            throw new ClosedChannelException(); // past the end of the stream
        }
        if (msg instanceof ByteBuf buf) {
            if (settings.isMessageMode() && buf.readableBytes() > settings.maxMessageSize) {
                throw new IllegalArgumentException("a UDT message of " + buf.readableBytes() + " bytes exceeds MAX_MESSAGE_SIZE ("
                        + settings.maxMessageSize + ")");
            }
            return msg;
        }
        if (msg instanceof FileRegion) {
            if (settings.isMessageMode()) {
                throw new UnsupportedOperationException("UDT message mode writes ByteBufs (each one message), not FileRegions");
            }
            return msg;
        }
        throw new UnsupportedOperationException("UDT channels write ByteBuf or FileRegion, got " + msg.getClass().getName());
    }

    @Override
    protected void doShutdownOutput() {
        if (settings.mode != UdtSettings.StreamMode.FRAMED) {
            throw new UnsupportedOperationException("UDT " + (settings.mode == UdtSettings.StreamMode.RAW ? "raw stream" : "message mode")
                    + " cannot half-close: UDT has no way to end one direction of a connection. The default framed"
                    + " stream mode (Ferry at both ends) can; otherwise close the channel");
        }
        if (!outputShutdown && connection != null) {
            outputShutdown = true;
            connection.write(UdtFraming.endOfStream(alloc()));
            framingSent(UdtFraming.HEADER);
            connection.flush(endpoint.now());
            endpoint.afterCall(this);
        }
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShutdown || !isActive();
    }

    void framingSent(int bytes) {
        framingBytes += bytes;
    }

    /** Whether the stream end was written (by a half-close or a lingering close). */
    boolean endWritten() {
        return outputShutdown;
    }

    /** Marks the end of the stream written by a lingering close. */
    void markEndWritten() {
        outputShutdown = true;
    }

    // ------------------------------------------------------------------ linger and statistics

    @Override
    protected boolean connectionCanLinger() {
        return connection.phase() == UdtConnection.Phase.CONNECTED;
    }

    @Override
    protected EngineLinger newLinger(ChannelPromise promise, Duration linger) {
        return new UdtLinger(this, promise, linger);
    }

    @Override
    protected TransportStatistics takeStatistics(TransportStatistics last) {
        return UdtChannelStatistics.of(connection, implementation(), framingBytes, framing.payloadBytes());
    }

    @Override
    protected TransportStatistics emptyStatistics() {
        return TransportStatistics.builder(UdtTransport.NAME, implementation()).build();
    }

    @Override
    protected String ioName() {
        return transport.io().name();
    }

    // ------------------------------------------------------------------ connecting

    @Override
    protected void openClient(InetSocketAddress remote) {
        transport.openClientEndpoint(this, remote);
    }

    /** Starts the handshake once the endpoint's socket is ready; on the event loop. */
    void startConnect(UdtEndpoint endpoint, InetSocketAddress remote) {
        connecting(endpoint, remote);
        int id = endpoint.newSocketId();
        int isn = ThreadLocalRandom.current().nextInt(Integer.MAX_VALUE);
        var protocol = settings.protocol(remote.getAddress() instanceof Inet6Address, alloc());
        attach(settings.rendezvous
                ? UdtConnection.rendezvous(protocol, id, isn, remote.getAddress(), endpoint.now())
                : UdtConnection.connect(protocol, id, isn, remote.getAddress(), endpoint.now()));
        endpoint.register(this);
        endpoint.afterCall(this);
    }

    /** An accepted connection: the core answered the request already. */
    void accepted(Handshake request, int socketId, long now) {
        boolean ipv6 = remote.getAddress() instanceof Inet6Address;
        attach(UdtConnection.accept(settings.protocol(ipv6, alloc()), socketId, request, remote.getAddress(), now));
    }

    /** Fails a pending connect whose socket could not be set up. */
    void connectFailed(Throwable cause) {
        failConnect(cause);
    }

    // ------------------------------------------------------------------ the core's events

    @Override
    protected void onData(ByteBuf data) {
        if (!open || inputShutdown || lingering() != null) {
            int n = data.readableBytes();
            long payload = framing.skip(data);
            data.release();
            connection.consumed(n, endpoint.now());
            if (awaitingPeerEnd && !connection.isClosed()) {
                if (payload > 0) {
                    connection.abort(endpoint.now()); // data for a closed channel: a reset, as TCP's
                } else if (framing.endSeen()) {
                    // both sides ended: now UDT's shutdown, once the peer has our ACK of its end (its ACK2), for
                    // the shutdown carries none; with no linger a lost final ACK had the peer take its delivered
                    // stream for lost
                    connection.close(bothEndedLingerNanos(), endpoint.now());
                }
            }
            return;
        }
        try {
            framing.decode(data, inbound(), this::consumed);
        } catch (IOException malformed) {
            pipeline().fireExceptionCaught(malformed);
            connection.abort(endpoint.now());
            return;
        }
        deliverInbound();
    }

    @Override
    protected void onEndOfStream() {
        if (!open) {
            return;
        }
        if (!framing.endSeen()) {
            if (settings.mode == UdtSettings.StreamMode.FRAMED && active && lingering() == null && !inputShutdown) {
                drainInbound();
                pipeline().fireExceptionCaught(new IOException("UDT connection with " + remote
                        + " reset: the peer went away without ending its stream"));
                releaseInbound();
                return;
            }
            inbound().add(ReadLoop.END);
        }
        deliverInbound();
    }

    @Override
    protected Throwable connectFailure(Throwable cause) {
        if (cause instanceof UdtException e && e.getMessage().contains("refused")) {
            ConnectException refused = new ConnectException("Connection refused by the UDT peer at " + remote + ": " + e.getMessage());
            refused.initCause(e);
            return refused;
        }
        return cause == null ? new ClosedChannelException() : cause;
    }

    @Override
    protected Throwable failure(Throwable cause) {
        return cause instanceof UdtException u ? new IOException(u.getMessage(), u) : cause;
    }
}
