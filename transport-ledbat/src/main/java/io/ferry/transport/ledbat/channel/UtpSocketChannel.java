package io.ferry.transport.ledbat.channel;

import io.ferry.transport.TransportStatistics;
import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.ledbat.core.ConnectionState;
import io.ferry.transport.ledbat.core.UtpConnection;
import io.ferry.transport.spi.ReadLoop;
import io.ferry.transport.udp.engine.EngineChannel;
import io.ferry.transport.udp.engine.EngineLinger;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One uTP connection as a Netty {@link Channel}: ordered, reliable bytes with writability-based
 * backpressure, {@code autoRead}, half-close ({@link io.netty.channel.socket.DuplexChannel}) and abortive
 * close; a leaf over the engine's {@link EngineChannel}, driving a sans-I/O {@link UtpConnection} on the
 * event loop of the {@link UtpEndpoint} whose UDP socket carries it.
 *
 * <p>A graceful {@code close()} of an established connection lingers: every byte written before it
 * (flushed or not) is still sent, then the FIN, and the close future completes when the peer has
 * acknowledged the FIN, or fails with {@link UndeliveredDataException} when the
 * {@link io.ferry.transport.FerryChannelOption#LINGER} runs out or the connection fails first (the
 * connection is then reset). Nothing is read from the channel once the close began. An accepted
 * connection is the application's only once its initiator proved its address (BEP 29's SYN cookie
 * in Ferry's form: {@link #awaitConfirmation}).
 */
public final class UtpSocketChannel extends EngineChannel<UtpConnection, UtpEndpoint> {

    /** Up to 256 messages (of one packet's payload each, 1.4 KB by default) per read loop: about the bytes epoll reads in its 16. */
    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 256);

    private final UtpSocketChannelConfig config = new UtpSocketChannelConfig(this, this::autoReadCleared);
    private final UtpTransport transport;
    private final UtpSettings settings;
    /** An accepted connection whose initiator has not yet proven its address: not yet the application's. */
    private boolean awaitingConfirmation;

    /** A client connection, not yet connected. */
    UtpSocketChannel(UtpTransport transport, UtpSettings settings) {
        super(null, "uTP", null, null, null);
        this.transport = transport;
        this.settings = settings;
    }

    /** An accepted connection. */
    UtpSocketChannel(UtpServerChannel parent, UtpTransport transport, UtpSettings settings, UtpEndpoint endpoint,
                     InetSocketAddress remote) {
        super(parent, "uTP", endpoint, remote, null);
        this.transport = transport;
        this.settings = settings;
    }

    // ------------------------------------------------------------------ wiring used by the endpoint

    void attach(UtpConnection connection) {
        this.connection = connection;
    }

    UtpConnection connection() {
        return connection;
    }

    InetSocketAddress remote() {
        return remote;
    }

    /** The endpoint that carries this connection. */
    UtpEndpoint endpoint() {
        return endpoint;
    }

    UtpSettings settings() {
        return settings;
    }

    /** An accepted connection starts half-open: the application gets it once its initiator proved its address. */
    void awaitConfirmation() {
        awaitingConfirmation = true;
    }

    /** Whether this accepted connection is still half-open (never registered, unknown to the application). */
    boolean isAwaitingConfirmation() {
        return awaitingConfirmation;
    }

    @Override
    protected boolean hiddenFromApplication() {
        return awaitingConfirmation;
    }

    /** A half-open connection the endpoint forgot (its state ended, the socket closed, or it was evicted) is simply dropped. */
    @Override
    protected void forgotten() {
        if (awaitingConfirmation) {
            open = false;
            active = false;
            releaseInbound();
        }
    }

    /** Once its initiator proved its address, an accepted connection is registered: channelActive, then what arrived. */
    @Override
    protected void beforeCollect() {
        if (awaitingConfirmation && connection.isPeerConfirmed() && !connection.isClosed()) {
            awaitingConfirmation = false;
            parent().promote(this, endpoint);
        }
    }

    /**
     * Resets an accepted connection that no application took because its listener closed first, as a
     * kernel resets the connections left in a closed listener's backlog. On the endpoint's loop; never registered.
     */
    void resetUnclaimed() {
        open = false;
        active = false;
        releaseInbound();
        if (connection != null && !connection.isClosed()) {
            connection.abort(endpoint.now());
            endpoint.afterCall(this);
        }
    }

    @Override
    protected void onDatagram(ByteBuf packet, InetSocketAddress from, long now) {
        connection.onPacket(packet, endpoint.parsed(), now);
    }

    /** The UDP socket reported that the peer's port is unreachable (ICMP): the connect is refused. */
    @Override
    protected void portUnreachable() {
        if (connectPromise != null && !connectPromise.isDone()) {
            // Failing the promise first makes the refusal, not the ensuing close, the reported cause.
            failConnect(new ConnectException("Connection refused: " + remote));
        }
    }

    // ------------------------------------------------------------------ Channel

    @Override
    public UtpServerChannel parent() {
        return (UtpServerChannel) super.parent();
    }

    @Override
    public UtpSocketChannelConfig config() {
        return config;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    /** An established connection closes gracefully (queued data, then FIN); a handshake in progress is reset. */
    @Override
    protected void closeConnection(boolean wasActive) {
        if (wasActive) {
            connection.close(endpoint.now());
        } else {
            connection.abort(endpoint.now());
        }
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        if (connection == null || !active) {
            throw new ClosedChannelException();
        }
        boolean wrote = UtpOutbound.write(in, connection, alloc());
        if (wrote) {
            connection.flush(endpoint.now());
        }
        endpoint.afterCall(this);
    }

    @Override
    protected Object filterOutboundMessage(Object msg) throws ClosedChannelException {
        if (lingering() != null && lingering().endQueued()) {
            throw new ClosedChannelException(); // past the end of stream the close queued
        }
        if (msg instanceof ByteBuf || msg instanceof FileRegion) {
            return msg;
        }
        throw new UnsupportedOperationException("uTP channels write ByteBuf or FileRegion, got " + msg.getClass().getName());
    }

    @Override
    protected void doShutdownOutput() {
        if (connection != null) {
            connection.shutdownOutput(endpoint.now());
            endpoint.afterCall(this);
        }
    }

    @Override
    public boolean isOutputShutdown() {
        return connection == null ? !isActive() : connection.streams().isOutputShutdown() || !isActive();
    }

    // ------------------------------------------------------------------ linger and statistics

    @Override
    protected boolean connectionCanLinger() {
        return !connection.isClosed() && connection.state() == ConnectionState.CONNECTED;
    }

    @Override
    protected EngineLinger newLinger(ChannelPromise promise, Duration linger) {
        return new UtpLinger(this, promise, linger);
    }

    @Override
    protected TransportStatistics takeStatistics(TransportStatistics last) {
        return UtpChannelStatistics.of(connection, implementation());
    }

    @Override
    protected TransportStatistics emptyStatistics() {
        return TransportStatistics.builder(UtpTransport.NAME, implementation()).build();
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

    /** Starts the handshake once the endpoint's socket is ready; called on the event loop. */
    void startConnect(UtpEndpoint endpoint, InetSocketAddress remote) {
        connecting(endpoint, remote);
        int recvId = endpoint.newConnectionId(remote);
        attach(UtpConnection.connect(PathMtu.fit(settings.protocol, remote), recvId, ThreadLocalRandom.current().nextInt(1 << 16),
                endpoint.now()));
        endpoint.register(this);
        endpoint.afterCall(this); // the SYN leaves
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
            data.release();
            connection.consumed(n, endpoint.now());
            return;
        }
        inbound().add(data);
        deliverInbound();
    }

    @Override
    protected void onEndOfStream() {
        if (!open) {
            return;
        }
        inbound().add(ReadLoop.END);
        deliverInbound();
    }

    @Override
    protected Throwable connectFailure(Throwable cause) {
        return UtpChannelErrors.connectFailure(cause, remote);
    }

    @Override
    protected Throwable failure(Throwable cause) {
        return UtpChannelErrors.afterEstablished(cause);
    }
}
