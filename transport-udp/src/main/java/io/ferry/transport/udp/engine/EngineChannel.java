package io.ferry.transport.udp.engine;

import io.ferry.transport.TransportStatistics;
import io.ferry.transport.ledbat.core.ConnectionSink;
import io.ferry.transport.ledbat.core.EngineConnection;
import io.ferry.transport.spi.AbstractStreamChannel;
import io.ferry.transport.spi.GracefulClose;
import io.ferry.transport.spi.HomeLoopGroup;
import io.ferry.transport.spi.LoopStatistics;
import io.ferry.transport.spi.StreamChannelConfig;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;

/**
 * One connection of a user-space wire as a Netty {@link Channel}, the base every engine transport's
 * channel is a small leaf of (uTP's, UDT's): it runs on the event loop of the {@link EngineEndpoint} whose
 * UDP socket carries it and drives a sans-I/O {@link EngineConnection}. Here: the core's outputs
 * ({@link #collect}, re-entrant), inbound delivery with {@code autoRead} and read batches, backpressure
 * from the core's writability and the socket's, binding before connecting, the home loop of an accepted
 * connection, abort, the start of a lingering close, statistics, and what happens when the connection
 * fails, closes or loses its socket. A leaf supplies the wire: how a client connects, how writes enter the
 * core, what a close and a half-close send, and how its errors read.
 *
 * @param <C> the protocol core's connection
 * @param <E> the transport's endpoint
 */
public abstract class EngineChannel<C extends EngineConnection, E extends EngineEndpoint<?>> extends AbstractStreamChannel
        implements HomeLoopGroup.HomeLoop {

    private final String protocol;
    private final LoopStatistics statistics = new LoopStatistics(this, this::takeStatistics, this::emptyStatistics);
    private final ConnectionSink sink = new EngineChannelSink(this);
    private final EngineInbound inbound = new EngineInbound(this);
    /** The endpoint's wake-up for this connection's next protocol deadline. */
    final EngineTimer timer = new EngineTimer();
    /** Whether the endpoint has this channel in its current batch of received datagrams. */
    boolean inReadBatch;
    /** Bytes the application consumed during the current read batch, reported to the core at its end. */
    private long consumedInBatch;

    /** The endpoint whose socket carries this connection; null for a client until it connects. */
    protected E endpoint;
    /** The protocol connection; null for a client until it connects. */
    protected C connection;
    /** The peer's address; null for a client until it connects. */
    protected InetSocketAddress remote;
    private InetSocketAddress bindAddress;
    private boolean coreClosed;
    private boolean collecting;
    private boolean collectAgain;
    private EngineLinger lingering;

    /**
     * @param parent   the listener of an accepted connection, null for a client
     * @param protocol the wire's name in messages ("uTP", "UDT")
     */
    protected EngineChannel(Channel parent, String protocol, E endpoint, InetSocketAddress remote, InetSocketAddress bindAddress) {
        super(parent);
        this.protocol = protocol;
        this.endpoint = endpoint;
        this.remote = remote;
        this.bindAddress = bindAddress;
    }

    // ------------------------------------------------------------------ what a wire supplies

    @Override
    public abstract StreamChannelConfig config();

    /** A datagram the endpoint routed here; the caller keeps ownership. */
    protected abstract void onDatagram(ByteBuf datagram, InetSocketAddress from, long now);

    /** Opens the client's endpoint and starts the handshake towards {@code remote}. */
    protected abstract void openClient(InetSocketAddress remote);

    /** The channel closed: {@code wasActive} an established connection (close it gracefully as the wire does), else reset it. */
    protected abstract void closeConnection(boolean wasActive);

    /** Whether the connection is where a graceful close can wait for the peer (established, not closing). */
    protected abstract boolean connectionCanLinger();

    /** A graceful close of this channel, not yet started. */
    protected abstract EngineLinger newLinger(ChannelPromise promise, Duration linger);

    /** In-order payload the core delivered; ownership passes. */
    protected abstract void onData(ByteBuf data);

    /** The peer's end of the stream, after its last payload. */
    protected abstract void onEndOfStream();

    /** The ICMP port-unreachable the socket reported: a connect in progress is refused. */
    protected abstract void portUnreachable();

    /** A failed handshake's cause as the application should read it. */
    protected abstract Throwable connectFailure(Throwable cause);

    /** An established connection's failure as the application should read it. */
    protected abstract Throwable failure(Throwable cause);

    /** A statistics snapshot of the connection. */
    protected abstract TransportStatistics takeStatistics(TransportStatistics last);

    /** Statistics before there is a connection. */
    protected abstract TransportStatistics emptyStatistics();

    /** The I/O implementation's name before there is an endpoint. */
    protected abstract String ioName();

    /** Whether this connection is not yet the application's (an accepted one still proving its peer); default no. */
    protected boolean hiddenFromApplication() {
        return false;
    }

    /** The endpoint forgot this connection; default: nothing more to do. */
    protected void forgotten() {
    }

    /** Called before each collect (an accepted connection may become the application's here); default nothing. */
    protected void beforeCollect() {
    }

    // ------------------------------------------------------------------ wiring used by the endpoint

    final void beginReadBatch() {
        if (connection != null) {
            connection.beginReadBatch();
        }
    }

    final void endOfReadBatch() {
        if (connection != null) {
            long now = endpoint.now();
            if (consumedInBatch > 0) {
                int n = (int) Math.min(Integer.MAX_VALUE, consumedInBatch);
                consumedInBatch = 0;
                connection.consumed(n, now);
            }
            connection.endReadBatch(now);
        }
        if (isRegistered() && !inbound.delivering()) {
            inbound.reads.complete();
        }
    }

    /** Auto-read was switched off (from the config). */
    protected final void autoReadCleared() {
        inbound.reads.autoReadCleared();
    }

    /**
     * Handling of a packet or timer threw: the connection is reset and the channel closed, its buffers
     * released; the endpoint and its other connections carry on.
     */
    final void failed(Throwable cause) {
        if (connection != null && !connection.isClosed()) {
            try {
                connection.abort(endpoint.now());
            } catch (RuntimeException again) {
                connection.releaseUncollected();
            }
        }
        if (hiddenFromApplication()) {
            return;
        }
        if (open && isRegistered()) {
            if (lingering == null && active) {
                pipeline().fireExceptionCaught(new IOException(protocol + " connection to " + remote + " failed internally: " + cause, cause));
            }
            unsafe().close(unsafe().voidPromise());
        }
    }

    /** The UDP socket under this connection closed: the connection is over (nothing more can leave). */
    final void socketClosed(long now) {
        if (connection != null) {
            if (!connection.isTerminated()) {
                connection.abort(now);
            }
            connection.releaseUncollected();
        }
        coreClosed = true;
        boolean hidden = hiddenFromApplication();
        forgotten();
        if (hidden) {
            return;
        }
        if (open && isRegistered()) {
            unsafe().close(unsafe().voidPromise());
        } else if (!isRegistered()) {
            open = false;
            active = false;
            releaseInbound();
        }
    }

    /**
     * Collects what the protocol core produced since the last call into it: datagrams go to the
     * endpoint (only while its socket can take them; else they wait in the core), then events and
     * delivered payload reach the pipeline. What the pipeline does in turn may call into the connection
     * again; those calls only ask for another round, which runs here until the core has nothing more.
     */
    final void collect() {
        if (connection == null) {
            return;
        }
        if (collecting) {
            collectAgain = true;
            return;
        }
        collecting = true;
        try {
            beforeCollect();
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

    // ------------------------------------------------------------------ Channel

    /**
     * An accepted connection lives on the loop of the UDP socket that carries it, whichever group a
     * bootstrap registers it through (see {@link HomeLoopGroup}); a client opens its own socket on any.
     */
    @Override
    protected final boolean isCompatible(EventLoop loop) {
        return endpoint == null || parent() == null || loop == endpoint.loop();
    }

    /** The loop an accepted connection must be registered on: its UDP socket's; null for a client. */
    @Override
    public final EventLoop homeLoop() {
        return parent() == null || endpoint == null ? null : endpoint.loop();
    }

    @Override
    protected final SocketAddress localAddress0() {
        return endpoint == null ? bindAddress : endpoint.localAddress();
    }

    @Override
    protected final SocketAddress remoteAddress0() {
        return remote;
    }

    @Override
    protected final AbstractUnsafe newUnsafe() {
        return new EngineUnsafe();
    }

    /** Binding a client before it connects chooses where its UDP socket binds when it connects. */
    @Override
    protected final void doBind(SocketAddress localAddress) {
        if (parent() != null || connection != null || connectPromise != null) {
            throw new IllegalStateException("a " + protocol + " connection binds before it connects, once");
        }
        if (!(localAddress instanceof InetSocketAddress inet)) {
            throw new IllegalArgumentException(protocol + " binds to an InetSocketAddress, got " + localAddress);
        }
        bindAddress = inet;
    }

    /** Where a client's UDP socket is to bind (a bind before the connect), or null for the system's choice. */
    public final InetSocketAddress bindAddress() {
        return bindAddress;
    }

    @Override
    protected final void doClose() {
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
        if (connection != null && !connection.isClosed()) {
            closeConnection(wasActive);
            endpoint.afterCall(this);
        }
    }

    @Override
    protected final void doBeginRead() {
        inbound.reads.requested();
        if (!inputShutdown && active) {
            deliverInbound();
        }
    }

    @Override
    protected final boolean hasConnection() {
        return connection != null;
    }

    @Override
    protected final void shutdownInput0(ChannelPromise promise) {
        inputShutdown = true;
        releaseInbound();
        endpoint.afterCall(this);
        promise.setSuccess();
    }

    @Override
    protected final void shutdownOutput0(ChannelPromise promise) {
        ((AbstractUnsafe) unsafe()).shutdownOutput(promise);
    }

    // ------------------------------------------------------------------ abort, linger, statistics

    /** Resets the connection and closes the channel; the transport's {@code abort}. */
    public final ChannelFuture abort() {
        return abortOnLoop();
    }

    private void abort0(ChannelPromise promise) {
        if (connection != null && !connection.isClosed()) {
            connection.abort(endpoint.now());
            endpoint.afterCall(this); // a lingering close fails, naming what the abort dropped
        }
        unsafe().close(promise);
    }

    /**
     * Starts a graceful close of an established connection: what was written still goes, the wire's end
     * follows, and the close waits for the peer ({@link EngineLinger}). Nothing is read once it began.
     */
    private void startLingering(ChannelPromise promise) {
        lingering = newLinger(promise, config().getLinger());
        releaseInbound();
        lingering.start();
    }

    /** The graceful close in progress, or null. */
    protected final EngineLinger lingering() {
        return lingering;
    }

    /** Whether {@code l} is still this channel's close in progress. */
    final boolean isLingering(EngineLinger l) {
        return lingering == l;
    }

    /** Closes the channel now (a lingering close is over), completing {@code promise}. */
    final void closeNow(ChannelPromise promise) {
        ((StreamUnsafe) unsafe()).closeNow(promise);
    }

    /** A statistics snapshot of this connection, taken on its event loop; the transport's {@code statistics}. */
    public final TransportStatistics statistics() {
        return statistics.get();
    }

    /** The I/O implementation under this channel, as the statistics name it. */
    protected final String implementation() {
        return endpoint == null ? ioName() : endpoint.implementation();
    }

    // ------------------------------------------------------------------ inbound delivery

    /** What arrived and the application has not read (a leaf adds to it from {@link #onData}). */
    protected final io.ferry.transport.spi.InboundQueue inbound() {
        return inbound;
    }

    /**
     * Hands what arrived to the pipeline; the end of the stream is delivered whether or not a read is
     * pending, as epoll reports a peer's shutdown. Once the protocol connection is over, the channel
     * closes as soon as the application has read everything.
     */
    protected final void deliverInbound() {
        drainInbound();
        inbound.closeIfOver(coreClosed);
    }

    /** Hands the pipeline what it asked for of what arrived; the channel stays open. */
    protected final void drainInbound() {
        if (inbound.drain() && !inReadBatch) {
            endpoint.afterCall(this); // a window update may be due (in a read batch, at its end)
        }
    }

    /** Whether delivered bytes still go to the application (not once it closed or began a graceful close). */
    final boolean acceptsInbound() {
        return open && lingering == null;
    }

    final void endOfInput() {
        endInput();
    }

    protected final void releaseInbound() {
        inbound.release();
    }

    /**
     * The application consumed {@code bytes}: they leave the connection's receive window. Inside a read
     * batch they are added up and reported once at its end, where the batch's acknowledgement carries the
     * reopened window anyway: a call into the core, with its send attempt and timers, per delivered
     * payload was a per-packet cost of the receiver (issue 58).
     */
    protected final void consumed(int bytes) {
        if (connection == null) {
            return;
        }
        if (inReadBatch) {
            consumedInBatch += bytes;
            return;
        }
        connection.consumed(bytes, endpoint.now());
    }

    /** Starts a client's connection on {@code endpoint}: a leaf calls this once its core exists. */
    protected final void connecting(E endpoint, InetSocketAddress remote) {
        this.endpoint = endpoint;
        this.remote = remote;
    }

    // ------------------------------------------------------------------ the core's events

    final void onConnected() {
        boolean wasActive = active;
        active = true;
        ChannelPromise promise = takeConnectPromise();
        if (promise != null) {
            if (promise.trySuccess()) {
                pipeline().fireChannelActive(); // the pipeline's head starts reading if autoRead is on
            }
        } else if (!wasActive && parent() != null && isRegistered()) {
            pipeline().fireChannelActive(); // registered before its handshake's answer was collected
        }
    }

    final void onWritabilityChanged(boolean writable) {
        if (writable && open && active) {
            ((StreamUnsafe) unsafe()).resumeWrites();
        }
    }

    final void onClosed(Throwable causeOrNull) {
        coreClosed = true;
        if (hiddenFromApplication()) {
            return; // never the application's: the endpoint forgets it
        }
        if (connectPromise != null && !connectPromise.isDone()) {
            failConnect(connectFailure(causeOrNull));
            return;
        }
        if (!open) {
            return;
        }
        if (causeOrNull != null && active && lingering == null) {
            // what arrived before the failure is delivered first, then the error, then the close
            drainInbound();
            pipeline().fireExceptionCaught(failure(causeOrNull));
            releaseInbound();
        }
        inbound.closeIfOver(true);
    }

    private final class EngineUnsafe extends StreamUnsafe {
        @Override
        protected String protocol() {
            return protocol;
        }

        @Override
        protected boolean connectionStarted() {
            return connection != null;
        }

        @Override
        protected void startConnect(InetSocketAddress remote) {
            openClient(remote);
        }

        @Override
        protected GracefulClose lingering() {
            return lingering == null ? null : lingering.waiting();
        }

        @Override
        protected boolean canLinger() {
            return connection != null && connectionCanLinger();
        }

        @Override
        protected Duration linger() {
            return config().getLinger();
        }

        @Override
        protected void startLingering(ChannelPromise promise) {
            EngineChannel.this.startLingering(promise);
        }

        @Override
        protected void abort(ChannelPromise promise) {
            abort0(promise);
        }
    }
}
