package io.ferry.transport.udt;

import io.ferry.transport.TransportStatistics;
import io.ferry.transport.spi.GracefulClose;
import io.ferry.transport.spi.LoopStatistics;
import io.ferry.transport.spi.ReadLoop;
import io.ferry.transport.udt.proto.core.UdtConnection;
import io.ferry.transport.udt.proto.core.UdtException;
import io.ferry.transport.udt.proto.wire.Handshake;
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
 * One UDT connection as a Netty {@link Channel}, on Ferry's own UDT4 engine ({@code udt-proto}):
 * ordered, reliable bytes with writability-based backpressure, {@code autoRead}, half-close in the
 * default framed mode, abortive close. It runs on the event loop of the {@link UdtEndpoint} whose UDP
 * socket carries it and drives a sans-I/O {@link UdtConnection}; no native code.
 *
 * <p>How bytes travel is the {@link UdtSettings.StreamMode}: {@code FRAMED} (Ferry at both ends: a
 * 4-byte length before each write, a zero length ends the stream, so half-close works), {@code RAW} (a
 * plain UDT4 byte stream, as any UDT application speaks it) or {@code MESSAGE} (UDT4 messages, each write
 * one message). A graceful {@code close()} sends what was written, then UDT's shutdown once the peer has
 * acknowledged every byte ({@link UdtLinger}).
 */
public final class UdtSocketChannel extends io.ferry.transport.spi.AbstractStreamChannel
        implements io.ferry.transport.spi.HomeLoopGroup.HomeLoop {

    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 256);

    private final UdtChannelConfig config;
    private final LoopStatistics statistics = new LoopStatistics(this, this::takeStatistics, this::emptyStatistics);
    private final UdtTransport transport;
    private final UdtSettings settings;
    private final UdtChannelSink sink = new UdtChannelSink(this);
    private final UdtInbound inbound = new UdtInbound(this);
    private final UdtFraming framing;
    /** The endpoint's wake-up for this connection's next deadline. */
    final UdtEndpoint.Timer timer = new UdtEndpoint.Timer();
    /** Whether the endpoint has this channel in its current batch of received datagrams. */
    boolean inReadBatch;

    private UdtEndpoint endpoint;
    private UdtConnection connection;
    private InetSocketAddress remote;
    private InetSocketAddress bindAddress;
    private boolean coreClosed;
    private boolean collecting;
    private boolean collectAgain;
    private boolean outputShutdown;
    private boolean awaitingPeerEnd;
    private UdtLinger lingering;
    /** Bytes of Ferry's frame headers sent: not the application's, so not in the statistics' bytes sent. */
    private long framingBytes;

    /** A client connection, not yet connected. */
    UdtSocketChannel(UdtTransport transport, UdtSettings settings) {
        super(null);
        this.transport = transport;
        this.settings = settings;
        this.framing = new UdtFraming(settings.mode);
        this.bindAddress = settings.bindAddress;
        this.config = new UdtChannelConfig(this, settings);
    }

    /** An accepted connection. */
    UdtSocketChannel(UdtServerChannel parent, UdtTransport transport, UdtSettings settings, UdtEndpoint endpoint,
                     InetSocketAddress remote) {
        super(parent);
        this.transport = transport;
        this.settings = settings;
        this.framing = new UdtFraming(settings.mode);
        this.endpoint = endpoint;
        this.remote = remote;
        this.config = new UdtChannelConfig(this, settings);
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

    void onDatagram(ByteBuf datagram, InetSocketAddress from, long now) {
        connection.onDatagram(datagram, now);
    }

    void endOfReadBatch() {
        if (isRegistered() && !inbound.delivering()) {
            inbound.reads.complete();
        }
    }

    void autoReadCleared() {
        inbound.reads.autoReadCleared();
    }

    /** ICMP said the peer's port is unreachable: a connect in progress is refused. */
    void portUnreachable() {
        if (connectPromise != null && !connectPromise.isDone() && !settings.rendezvous) {
            failConnect(new ConnectException("Connection refused: nothing listens for UDT at " + remote));
        }
    }

    /** Handling of a packet or timer threw: the connection is reset and the channel closes. */
    void failed(Throwable cause) {
        if (connection != null && connection.phase() != UdtConnection.Phase.CLOSED) {
            connection.abort(endpoint.now());
            collect();
        }
        if (open && isRegistered()) {
            if (lingering == null && active) {
                pipeline().fireExceptionCaught(new IOException("UDT connection to " + remote + " failed internally: " + cause, cause));
            }
            unsafe().close(unsafe().voidPromise());
        }
    }

    /** The UDP socket under this connection closed: the connection is over. */
    void socketClosed() {
        if (connection != null) {
            if (connection.phase() != UdtConnection.Phase.CLOSED) {
                connection.abort(0);
            }
            connection.releaseUncollected();
        }
        coreClosed = true;
        if (open && isRegistered()) {
            unsafe().close(unsafe().voidPromise());
        } else if (!isRegistered()) {
            open = false;
            active = false;
            releaseInbound();
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
    protected boolean isCompatible(EventLoop loop) {
        return endpoint == null || parent() == null || loop == endpoint.loop();
    }

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
        return new UdtUnsafe();
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        if (parent() != null || connection != null || connectPromise != null) {
            throw new IllegalStateException("a UDT connection binds before it connects, once");
        }
        if (!(localAddress instanceof InetSocketAddress inet)) {
            throw new IllegalArgumentException("udt:// binds to an InetSocketAddress, got " + localAddress);
        }
        bindAddress = inet;
    }

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
        if (connection != null && connection.phase() != UdtConnection.Phase.CLOSED) {
            if (wasActive && framing.framed() && outputShutdown && connection.bufferedBytes() == 0 && !framing.endSeen()) {
                awaitPeerEnd();
            } else if (wasActive) {
                connection.close(0, endpoint.now()); // what is queued leaves if it can; no waiting here
            } else {
                connection.abort(endpoint.now());
            }
            endpoint.afterCall(this);
        }
    }

    /**
     * Our end of the stream was acknowledged and the channel closed, but the peer's side is still open:
     * UDT's shutdown would end both directions at once, so the connection stays (as TCP's FIN_WAIT_2)
     * until the peer's end-of-stream frame arrives or {@link #PEER_END_WAIT_NANOS} passes. Data that
     * still comes for the closed channel resets the connection, as TCP resets it. A striped channel's
     * members end one by one so.
     */
    private void awaitPeerEnd() {
        awaitingPeerEnd = true;
        endpoint.loop().schedule(() -> {
            if (connection.phase() != UdtConnection.Phase.CLOSED) {
                connection.close(0, endpoint.now());
                endpoint.afterCall(this);
            }
        }, Math.max(PEER_END_WAIT_NANOS, config.getLinger().toNanos()), java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    /** The least time a closed channel's connection waits for the peer's end of stream. */
    static final long PEER_END_WAIT_NANOS = 30_000_000_000L;

    @Override
    protected void doBeginRead() {
        inbound.reads.requested();
        if (!inputShutdown && active) {
            deliverInbound();
        }
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        if (connection == null || !active || outputShutdown && lingering == null) {
            throw new ClosedChannelException();
        }
        if (connection.phase() == UdtConnection.Phase.CLOSED) {
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
        if (outputShutdown || lingering != null && lingering.endQueued()) {
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
        return outputShutdown || !isActive();
    }

    @Override
    protected void shutdownOutput0(ChannelPromise promise) {
        ((AbstractUnsafe) unsafe()).shutdownOutput(promise);
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

    // ------------------------------------------------------------------ abort, linger, statistics

    ChannelFuture abort() {
        return abortOnLoop();
    }

    private void abort0(ChannelPromise promise) {
        if (connection != null && connection.phase() != UdtConnection.Phase.CLOSED) {
            connection.abort(endpoint.now());
            endpoint.afterCall(this);
        }
        unsafe().close(promise);
    }

    private void startLingering(ChannelPromise promise) {
        lingering = new UdtLinger(this, promise, config.getLinger());
        releaseInbound();
        lingering.start();
    }

    boolean isLingering(UdtLinger l) {
        return lingering == l;
    }

    void closeNow(ChannelPromise promise) {
        ((StreamUnsafe) unsafe()).closeNow(promise);
    }

    TransportStatistics statistics() {
        return statistics.get();
    }

    private TransportStatistics takeStatistics(TransportStatistics last) {
        return UdtChannelStatistics.of(connection, implementation(), framingBytes, framing.payloadBytes());
    }

    private TransportStatistics emptyStatistics() {
        return TransportStatistics.builder(UdtTransport.NAME, implementation()).build();
    }

    private String implementation() {
        return endpoint == null ? transport.io().name() : endpoint.implementation();
    }

    // ------------------------------------------------------------------ inbound delivery

    private void deliverInbound() {
        drainInbound();
        inbound.closeIfOver(coreClosed);
    }

    private void drainInbound() {
        if (inbound.drain()) {
            endpoint.afterCall(this);
        }
    }

    boolean acceptsInbound() {
        return open && lingering == null;
    }

    void endOfInput() {
        endInput();
    }

    private void releaseInbound() {
        inbound.release();
    }

    /** The application consumed {@code bytes}: they leave the connection's receive buffer. */
    void consumed(int bytes) {
        if (connection != null) {
            connection.consumed(bytes, endpoint.now());
        }
    }

    /** Starts the handshake once the endpoint's socket is ready; on the event loop. */
    void startConnect(UdtEndpoint endpoint, InetSocketAddress remote) {
        this.endpoint = endpoint;
        this.remote = remote;
        int id = endpoint.newSocketId();
        int isn = ThreadLocalRandom.current().nextInt(Integer.MAX_VALUE);
        boolean ipv6 = remote.getAddress() instanceof java.net.Inet6Address;
        var protocol = settings.protocol(ipv6, alloc());
        UdtConnection c = settings.rendezvous
                ? UdtConnection.rendezvous(protocol, id, isn, remote.getAddress(), endpoint.now())
                : UdtConnection.connect(protocol, id, isn, remote.getAddress(), endpoint.now());
        attach(c);
        endpoint.register(this);
        endpoint.afterCall(this);
    }

    /** An accepted connection: the core answered the request already. */
    void accepted(Handshake request, int socketId, long now) {
        boolean ipv6 = remote.getAddress() instanceof java.net.Inet6Address;
        attach(UdtConnection.accept(settings.protocol(ipv6, alloc()), socketId, request, remote.getAddress(), now));
    }

    void connectFailed(Throwable cause) {
        failConnect(cause);
    }

    /** Collects what the core produced: datagrams to the endpoint, events and bytes to the pipeline. */
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
            do {
                collectAgain = false;
                connection.collect(sink);
            } while (collectAgain);
        } finally {
            collecting = false;
        }
        if (lingering != null) {
            lingering.progress();
        }
    }

    // ------------------------------------------------------------------ the core's events

    void onConnected() {
        boolean wasActive = active;
        active = true;
        ChannelPromise promise = takeConnectPromise();
        if (promise != null) {
            if (promise.trySuccess()) {
                pipeline().fireChannelActive();
            }
        } else if (!wasActive && parent() != null && isRegistered()) {
            pipeline().fireChannelActive(); // registered before its handshake's answer was collected
        }
    }

    /** How long a connection whose both ends are done waits at most for the ACK2 of its final ACK. */
    static final long BOTH_ENDED_LINGER_NANOS = 1_000_000_000L;

    void onData(ByteBuf data) {
        if (!open || inputShutdown || lingering != null) {
            int n = data.readableBytes();
            long payload = framing.skip(data);
            data.release();
            connection.consumed(n, endpoint.now());
            if (awaitingPeerEnd && connection.phase() != UdtConnection.Phase.CLOSED) {
                if (payload > 0) {
                    connection.abort(endpoint.now()); // data for a closed channel: a reset, as TCP's
                } else if (framing.endSeen()) {
                    // both sides ended: now UDT's shutdown, once the peer has our ACK of its end (its ACK2), for
                    // the shutdown carries none; with no linger a lost final ACK had the peer take its delivered
                    // stream for lost
                    connection.close(BOTH_ENDED_LINGER_NANOS, endpoint.now());
                }
            }
            return;
        }
        try {
            framing.decode(data, inbound, this::consumed);
        } catch (IOException malformed) {
            pipeline().fireExceptionCaught(malformed);
            connection.abort(endpoint.now());
            return;
        }
        deliverInbound();
    }

    void onEndOfStream() {
        if (!open) {
            return;
        }
        if (!framing.endSeen()) {
            if (settings.mode == UdtSettings.StreamMode.FRAMED && active && lingering == null && !inputShutdown) {
                drainInbound();
                pipeline().fireExceptionCaught(new IOException("UDT connection with " + remote
                        + " reset: the peer went away without ending its stream"));
                releaseInbound();
                return;
            }
            inbound.add(ReadLoop.END);
        }
        deliverInbound();
    }

    void onWritabilityChanged(boolean writable) {
        if (writable && open && active) {
            ((StreamUnsafe) unsafe()).resumeWrites();
        }
    }

    void onClosed(Throwable causeOrNull) {
        coreClosed = true;
        if (connectPromise != null && !connectPromise.isDone()) {
            failConnect(connectFailure(causeOrNull));
            return;
        }
        if (!open) {
            return;
        }
        if (causeOrNull != null && active && lingering == null) {
            drainInbound();
            pipeline().fireExceptionCaught(causeOrNull instanceof UdtException u ? new IOException(u.getMessage(), u) : causeOrNull);
            releaseInbound();
        }
        inbound.closeIfOver(true);
    }

    private Throwable connectFailure(Throwable cause) {
        if (cause instanceof UdtException e && e.getMessage().contains("refused")) {
            ConnectException refused = new ConnectException("Connection refused by the UDT peer at " + remote + ": " + e.getMessage());
            refused.initCause(e);
            return refused;
        }
        return cause == null ? new ClosedChannelException() : cause;
    }

    private final class UdtUnsafe extends StreamUnsafe {
        @Override
        protected String protocol() {
            return "UDT";
        }

        @Override
        protected boolean connectionStarted() {
            return connection != null;
        }

        @Override
        protected void startConnect(InetSocketAddress remote) {
            transport.openClientEndpoint(UdtSocketChannel.this, remote);
        }

        @Override
        protected GracefulClose lingering() {
            return lingering == null ? null : lingering.waiting;
        }

        @Override
        protected boolean canLinger() {
            return connection != null && connection.phase() == UdtConnection.Phase.CONNECTED;
        }

        @Override
        protected java.time.Duration linger() {
            return config.getLinger();
        }

        @Override
        protected void startLingering(ChannelPromise promise) {
            UdtSocketChannel.this.startLingering(promise);
        }

        @Override
        protected void abort(ChannelPromise promise) {
            abort0(promise);
        }
    }
}
