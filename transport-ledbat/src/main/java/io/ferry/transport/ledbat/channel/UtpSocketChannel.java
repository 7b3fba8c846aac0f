package io.ferry.transport.ledbat.channel;

import io.ferry.transport.TransportStatistics;
import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.ledbat.core.ConnectionSink;
import io.ferry.transport.ledbat.core.UtpConnection;
import io.ferry.transport.spi.GracefulClose;
import io.ferry.transport.spi.LoopStatistics;
import io.ferry.transport.spi.ReadLoop;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.FileRegion;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One uTP connection as a Netty {@link Channel}: ordered, reliable bytes with writability-based
 * backpressure, {@code autoRead}, half-close ({@link DuplexChannel}) and abortive close. It runs on the
 * event loop of the {@link UtpEndpoint} whose UDP socket carries it, and drives a sans-I/O
 * {@link UtpConnection}.
 *
 * <p>A graceful {@code close()} of an established connection lingers: every byte written before it
 * (flushed or not) is still sent, then the FIN, and the close future completes when the peer has
 * acknowledged the FIN, or fails with {@link UndeliveredDataException} when the
 * {@link io.ferry.transport.FerryChannelOption#LINGER} runs out or the connection fails first (the
 * connection is then reset). Nothing is read from the channel once the close began.
 */
public final class UtpSocketChannel extends io.ferry.transport.spi.AbstractStreamChannel implements io.ferry.transport.spi.HomeLoopGroup.HomeLoop {

    /** Up to 256 messages (of one packet's payload each, 1.4 KB by default) per read loop: about the bytes epoll reads in its 16. */
    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 256);

    private final UtpSocketChannelConfig config = new UtpSocketChannelConfig(this);
    private final LoopStatistics statistics = new LoopStatistics(this, this::takeStatistics, this::emptyStatistics);
    private final UtpTransport transport;
    private final UtpSettings settings;
    private final ConnectionSink sink = new UtpChannelSink(this);
    /** The endpoint's wake-up for this connection's next protocol deadline. */
    final UtpEndpoint.Timer timer = new UtpEndpoint.Timer();
    /** Whether the endpoint has this channel in its current batch of received datagrams. */
    boolean inReadBatch;

    private UtpEndpoint endpoint;
    private UtpConnection connection;
    private InetSocketAddress remote;
    private final UtpInbound inbound = new UtpInbound(this);
    private boolean coreClosed;
    private boolean collecting;
    private boolean collectAgain;
    /** Where a client's UDP socket binds, when the application bound the channel before connecting; else null. */
    private InetSocketAddress bindAddress;
    /** An accepted connection whose initiator has not yet proven its address: not yet the application's. */
    private boolean awaitingConfirmation;
    /** A graceful close waiting for the peer to acknowledge everything, or null. */
    private UtpLinger lingering;

    /** A client connection, not yet connected. */
    UtpSocketChannel(UtpTransport transport, UtpSettings settings) {
        super(null);
        this.transport = transport;
        this.settings = settings;
    }

    /** An accepted connection. */
    UtpSocketChannel(UtpServerChannel parent, UtpTransport transport, UtpSettings settings, UtpEndpoint endpoint,
                     InetSocketAddress remote) {
        super(parent);
        this.transport = transport;
        this.settings = settings;
        this.endpoint = endpoint;
        this.remote = remote;
    }

    // ------------------------------------------------------------------ wiring used by the endpoint

    void attach(UtpConnection connection) {
        this.connection = connection;
    }

    UtpConnection connection() {
        return connection;
    }

    /** An accepted connection starts half-open: the application gets it once its initiator proved its address. */
    void awaitConfirmation() {
        awaitingConfirmation = true;
    }

    /** Whether this accepted connection is still half-open (never registered, unknown to the application). */
    boolean isAwaitingConfirmation() {
        return awaitingConfirmation;
    }

    /**
     * The endpoint forgot this connection (its protocol state ended, the socket closed, or it was evicted
     * half-open): a half-open one is simply dropped.
     */
    void forgotten() {
        if (awaitingConfirmation) {
            open = false;
            active = false;
            releaseInbound();
        }
    }

    /**
     * Handling of a packet or timer threw: the connection is reset and closed, its buffers released;
     * the endpoint and its other connections carry on.
     */
    void failed(Throwable cause) {
        if (connection != null && !connection.isClosed()) {
            try {
                connection.abort(endpoint.now());
            } catch (RuntimeException again) {
                connection.releaseUncollected();
            }
        }
        if (awaitingConfirmation) {
            return;
        }
        if (open && isRegistered()) {
            if (lingering == null && active) {
                pipeline().fireExceptionCaught(new IOException("uTP connection to " + remote + " failed internally: " + cause, cause));
            }
            unsafe().close(unsafe().voidPromise());
        }
    }

    InetSocketAddress remote() {
        return remote;
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

    /** A datagram for this connection arrived. */
    void onPacket(ByteBuf packet, long now) {
        connection.onPacket(packet, now);
    }

    /** Called by the endpoint before the first datagram of a batch it read is handed to this connection. */
    void beginReadBatch() {
        if (connection != null) {
            connection.beginReadBatch();
        }
    }

    /** Called by the endpoint at the end of a batch of received datagrams. */
    void endOfReadBatch() {
        if (connection != null) {
            connection.endReadBatch(endpoint.now());
        }
        if (isRegistered() && !inbound.delivering()) {
            inbound.reads.complete();
        }
    }

    /** Auto-read was switched off (from the config). */
    void autoReadCleared() {
        inbound.reads.autoReadCleared();
    }

    /** The UDP socket reported that the peer's port is unreachable (ICMP): the connect is refused. */
    void portUnreachable() {
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

    /**
     * An accepted connection lives on the loop of the UDP socket that carries it, whichever group a
     * bootstrap registers it through (see {@link io.ferry.transport.spi.HomeLoopGroup}); a client opens its own socket on any.
     */
    @Override
    protected boolean isCompatible(EventLoop loop) {
        return endpoint == null || parent() == null || loop == endpoint.loop();
    }

    /** The loop an accepted connection must be registered on: its UDP socket's; null for a client. */
    @Override
    public EventLoop homeLoop() {
        return parent() == null || endpoint == null ? null : endpoint.loop();
    }

    @Override
    protected SocketAddress localAddress0() {
        return endpoint == null ? bindAddress : endpoint.localAddress();
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new UtpUnsafe();
    }

    /** Binding a client before it connects chooses where its UDP socket binds when it connects. */
    @Override
    protected void doBind(SocketAddress localAddress) {
        if (parent() != null || connection != null || connectPromise != null) {
            throw new IllegalStateException("a uTP connection binds before it connects, once");
        }
        if (!(localAddress instanceof InetSocketAddress)) {
            throw new IllegalArgumentException("uTP binds to an InetSocketAddress, got " + localAddress);
        }
        bindAddress = (InetSocketAddress) localAddress;
    }

    /** Where the client's UDP socket is to bind, or null for the system's choice. */
    InetSocketAddress bindAddress() {
        return bindAddress;
    }

    @Override
    protected void doClose() {
        if (!open) {
            return;
        }
        open = false;
        boolean wasActive = active;
        active = false;
        releaseInbound();
        if (connectPromise != null && !connectPromise.isDone()) {
            failConnect(new ClosedChannelException());
        }
        if (connection != null) {
            // An established connection closes gracefully (queued data, then FIN); a handshake in progress is reset.
            if (wasActive) {
                connection.close(endpoint.now());
            } else {
                connection.abort(endpoint.now());
            }
            endpoint.afterCall(this);
        }
    }

    @Override
    protected void doBeginRead() {
        inbound.reads.requested();
        if (!inputShutdown && active) {
            deliverInbound();
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
        if (lingering != null && lingering.endQueued()) {
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

    // ------------------------------------------------------------------ DuplexChannel

    @Override
    protected boolean hasConnection() {
        return connection != null;
    }

    @Override
    protected void shutdownInput0(ChannelPromise promise) {
        inputShutdown = true;
        releaseInbound();
        endpoint.afterCall(this);
        promise.setSuccess();
    }

    @Override
    public boolean isOutputShutdown() {
        return connection == null ? !isActive() : connection.isOutputShutdown() || !isActive();
    }

    @Override
    protected void shutdownOutput0(ChannelPromise promise) {
        ((AbstractUnsafe) unsafe()).shutdownOutput(promise);
    }

    // ------------------------------------------------------------------ abort and statistics

    /** Resets the connection (ST_RESET) and closes the channel. */
    ChannelFuture abort() {
        return abortOnLoop();
    }

    private void abort0(ChannelPromise promise) {
        if (connection != null && !connection.isClosed()) {
            connection.abort(endpoint.now());
            endpoint.afterCall(this); // a lingering close fails, naming what the abort dropped
        }
        unsafe().close(promise);
    }

    // ------------------------------------------------------------------ lingering close

    /**
     * Starts a graceful close of an established connection: flushes every write, queues the FIN behind
     * them once the channel's own buffer has drained into the connection, and waits for the peer.
     */
    private void startLingering(ChannelPromise promise) {
        lingering = new UtpLinger(this, promise, config.getLinger());
        releaseInbound();
        lingering.start();
    }

    /** The endpoint that carries this connection (for a lingering close's calls into the connection). */
    UtpEndpoint endpoint() {
        return endpoint;
    }

    /** Whether {@code l} is still this channel's close in progress. */
    boolean isLingering(UtpLinger l) {
        return lingering == l;
    }

    /** Closes the channel now (a lingering close is over), completing {@code promise}. */
    void closeNow(ChannelPromise promise) {
        ((StreamUnsafe) unsafe()).closeNow(promise);
    }

    /** A statistics snapshot; taken on the event loop. */
    TransportStatistics statistics() {
        return statistics.get();
    }

    private TransportStatistics takeStatistics(TransportStatistics last) {
        return UtpChannelStatistics.of(connection, implementation());
    }

    private TransportStatistics emptyStatistics() {
        return TransportStatistics.builder(UtpTransport.NAME, implementation()).build();
    }

    private String implementation() {
        return endpoint == null ? transport.io().name() : endpoint.implementation();
    }

    UtpSettings settings() {
        return settings;
    }

    // ------------------------------------------------------------------ inbound delivery

    /** Hands what arrived to the pipeline ({@link UtpInbound}); the end of the stream is delivered whether or not a read is pending, as epoll reports a peer's shutdown. */
    private void deliverInbound() {
        drainInbound();
        closeWhenDrained();
    }

    /** Hands the pipeline what it asked for of what arrived; the channel stays open (see {@link #closeWhenDrained}). */
    private void drainInbound() {
        if (inbound.drain()) {
            endpoint.afterCall(this); // a window update may be due
        }
    }

    /** Whether delivered bytes still go to the application (not once it closed). */
    boolean acceptsInbound() {
        return open && lingering == null;
    }

    /** Once the protocol connection is over, the channel closes as soon as the application has read everything. */
    private void closeWhenDrained() {
        inbound.closeIfOver(coreClosed);
    }

    void endOfInput() {
        endInput();
    }

    private void releaseInbound() {
        inbound.release();
    }

    /** Starts the handshake once the endpoint's socket is ready; called on the event loop. */
    void startConnect(UtpEndpoint endpoint, InetSocketAddress remote) {
        this.endpoint = endpoint;
        this.remote = remote;
        int recvId = endpoint.newConnectionId(remote);
        UtpConnection c = UtpConnection.connect(PathMtu.fit(settings.protocol, remote), recvId, ThreadLocalRandom.current().nextInt(1 << 16),
                endpoint.now());
        attach(c);
        endpoint.register(this);
        endpoint.afterCall(this); // the SYN leaves
    }

    /** Fails a pending connect whose socket could not be set up. */
    void connectFailed(Throwable cause) {
        failConnect(cause);
    }

    /**
     * Collects what the protocol core produced since the last call into it: datagrams go to the
     * endpoint, then events and delivered payload reach the pipeline. Called by the endpoint after
     * every call into the connection. What the pipeline does in turn may call into the connection
     * again; those calls only ask for another round, which runs here until the core has nothing more.
     */
    void collect() {
        if (connection == null) {
            return;
        }
        if (collecting) {
            collectAgain = true;
            return;
        }
        collecting = true;
        try {
            if (awaitingConfirmation && connection.isPeerConfirmed() && !connection.isClosed()) {
                awaitingConfirmation = false;
                parent().promote(this, endpoint); // registered now: channelActive, then what arrived
            }
            // the datagrams are taken only while the socket can take them; else they wait in the core
            boolean transmit = endpoint.socketWritable();
            do {
                collectAgain = false;
                connection.collect(sink, transmit);
            } while (collectAgain);
            if (!transmit && connection.hasTransmit()) {
                endpoint.waitForSocket(this);
            }
        } finally {
            collecting = false;
        }
        if (lingering != null) {
            lingering.progress();
        }
    }

    // ------------------------------------------------------------------ the core's events ({@link UtpChannelSink})

    void onConnected() {
        active = true;
        ChannelPromise promise = takeConnectPromise();
        if (promise != null) {
            if (promise.trySuccess()) {
                pipeline().fireChannelActive(); // the pipeline's head starts reading if autoRead is on
            }
        }
    }

    void onData(ByteBuf data) {
        if (!open || inputShutdown || lingering != null) {
            int n = data.readableBytes();
            data.release();
            connection.consumed(n, endpoint.now());
            return;
        }
        inbound.add(data);
        deliverInbound();
    }

    void onEndOfStream() {
        if (!open) {
            return;
        }
        inbound.add(ReadLoop.END);
        deliverInbound();
    }

    void onWritabilityChanged(boolean writable) {
        if (writable && open && active) {
            ((StreamUnsafe) unsafe()).resumeWrites();
        }
    }

    void onClosed(Throwable causeOrNull) {
        coreClosed = true;
        if (awaitingConfirmation) {
            return; // never the application's: the endpoint forgets it
        }
        if (connectPromise != null && !connectPromise.isDone()) {
            failConnect(UtpChannelErrors.connectFailure(causeOrNull, remote));
            return;
        }
        if (!open) {
            return;
        }
        if (causeOrNull != null && active && lingering == null) {
            // What arrived before the failure is delivered first, then the error, then the close.
            drainInbound();
            pipeline().fireExceptionCaught(UtpChannelErrors.afterEstablished(causeOrNull));
            releaseInbound();
        }
        closeWhenDrained();
    }

    private final class UtpUnsafe extends StreamUnsafe {
        @Override
        protected String protocol() {
            return "uTP";
        }

        @Override
        protected boolean connectionStarted() {
            return connection != null;
        }

        @Override
        protected void startConnect(InetSocketAddress remote) {
            transport.openClientEndpoint(UtpSocketChannel.this, remote);
        }

        @Override
        protected GracefulClose lingering() {
            return lingering == null ? null : lingering.waiting;
        }

        @Override
        protected boolean canLinger() {
            return connection != null && !connection.isClosed()
                    && connection.state() == io.ferry.transport.ledbat.core.ConnectionState.CONNECTED;
        }

        @Override
        protected java.time.Duration linger() {
            return config.getLinger();
        }

        @Override
        protected void startLingering(ChannelPromise promise) {
            UtpSocketChannel.this.startLingering(promise);
        }

        @Override
        protected void abort(ChannelPromise promise) {
            abort0(promise);
        }
    }
}
