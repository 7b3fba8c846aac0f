package io.ferry.transport.quic;

import io.ferry.transport.TransportStatistics;
import io.ferry.transport.spi.AbstractStreamChannel;
import io.ferry.transport.spi.GracefulClose;
import io.ferry.transport.spi.HomeLoopGroup;
import io.ferry.transport.spi.LoopStatistics;
import io.ferry.transport.spi.ReadLoop;
import io.ferry.transport.spi.StreamChannelConfig;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.FileRegion;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.util.concurrent.ScheduledFuture;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;

/**
 * One bidirectional stream of a QUIC connection (its own, or one it shares with the other members of a
 * striped channel, {@link QuicConnection}), as a Netty {@code SocketChannel}: ordered bytes, writability,
 * half-close, auto-read, a lingering close and abort, like every Ferry connection. It lives on the event loop
 * of its QUIC connection (a client's own UDP socket, or one of the listener's) and relays between
 * its pipeline and the codec's {@link QuicStreamChannel}: written bytes go to the stream only as far as the
 * stream's flow-control capacity reaches, the rest waiting in this channel's outbound buffer (its
 * writability is the user's backpressure); the stream is read ahead until {@link QuicInbound#PAUSE_AT} bytes wait for
 * the pipeline. A graceful {@code close()} ends the stream and completes once the peer's receipts
 * ({@link QuicWire}) confirm every byte, or fails with {@link io.ferry.transport.UndeliveredDataException}.
 */
public final class QuicSocketChannel extends AbstractStreamChannel implements HomeLoopGroup.HomeLoop {

    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);
    /** How long a closed channel waits for the peer's end of stream before resetting the connection (Linux's tcp_fin_timeout). */
    static final java.time.Duration FIN_WAIT = java.time.Duration.ofSeconds(60);

    private final QuicTransport transport;
    private final QuicSettings settings;
    private final StreamChannelConfig config;
    private final LoopStatistics statistics = new LoopStatistics(this, this::takeStatistics, this::emptyStatistics);
    private final Receipts receipts = new Receipts();
    private final StreamWrites writes = new StreamWrites(this::alloc, this::hand);
    private final QuicInbound inbound = new QuicInbound(this);

    /** The QUIC connection this channel's stream is on, once the stream exists. */
    private QuicConnection connection;
    /** While a client dials: its UDP socket and QUIC connection, closed with the channel; then the connection's. */
    private Channel dialUdp;
    private QuicChannel dialQuic;
    /** A client member of a shared connection lives on that connection's loop; null for any loop. */
    private final EventLoop clientHome;
    private QuicChannel quic;
    private QuicStreamChannel stream;
    private InetSocketAddress remote;
    private InetSocketAddress bindAddress;
    private QuicLinger lingering;
    private boolean outputShutdown;
    private final StreamEnd streamEnd = new StreamEnd();
    private boolean endReceived;
    private ScheduledFuture<?> keepAlive;

    /** A client connection, not yet connected; {@code home} the loop of the connection it will share, or null. */
    QuicSocketChannel(QuicTransport transport, QuicSettings settings, EventLoop home) {
        super(null);
        this.transport = transport;
        this.settings = settings;
        this.config = newConfig();
        this.clientHome = home;
    }

    /** A connection a listener accepted: its stream arrived with Ferry's preamble. */
    QuicSocketChannel(QuicServerChannel parent, QuicTransport transport, QuicSettings settings, QuicStreamChannel stream) {
        super(parent);
        this.transport = transport;
        this.settings = settings;
        this.config = newConfig();
        this.quic = stream.parent();
        this.connection = QuicConnection.of(quic);
        this.stream = stream;
        this.clientHome = null;
        this.remote = (InetSocketAddress) quic.remoteSocketAddress();
        this.receipts.reportOn(stream.streamId());
        this.active = true;
        startKeepAlive(stream.eventLoop());
    }

    /** Every third of the idle timeout a receipt goes, so that an idle connection lives as long as its peer answers. */
    private void startKeepAlive(EventLoop loop) {
        long period = settings.idleTimeout.toMillis() / 3;
        keepAlive = loop.scheduleAtFixedRate(() -> {
            if (quic != null && !isConnectionClosed() && open) {
                receipts.keepAlive(quic);
            }
        }, period, period, TimeUnit.MILLISECONDS);
    }

    private StreamChannelConfig newConfig() {
        return new StreamChannelConfig(this, () -> settings.streamWindow, () -> settings.streamWindow, inbound.reads::autoReadCleared);
    }

    // ------------------------------------------------------------------ Channel

    @Override
    public StreamChannelConfig config() {
        return config;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    public QuicServerChannel parent() {
        Channel p = super.parent();
        return p instanceof QuicServerChannel listener ? listener : null;
    }

    /** An accepted connection lives on its QUIC connection's loop; a client on its shared connection's, or any. */
    @Override
    public EventLoop homeLoop() {
        if (parent() == null) {
            return clientHome;
        }
        return stream == null ? null : stream.eventLoop();
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        EventLoop home = homeLoop();
        return home == null || home == loop;
    }

    @Override
    protected SocketAddress localAddress0() {
        if (connection != null) {
            return connection.localAddress();
        }
        return dialUdp != null ? dialUdp.localAddress() : bindAddress;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new QuicUnsafe();
    }

    /** Binding a client before it connects chooses where its UDP socket binds. */
    @Override
    protected void doBind(SocketAddress localAddress) {
        if (parent() != null || quic != null || dialUdp != null || connectPromise != null) {
            throw new IllegalStateException("a QUIC connection binds before it connects, once");
        }
        if (!(localAddress instanceof InetSocketAddress)) {
            throw new IllegalArgumentException("QUIC binds to an InetSocketAddress, got " + localAddress);
        }
        bindAddress = (InetSocketAddress) localAddress;
    }

    @Override
    protected void doBeginRead() {
        inbound.reads.requested();
        deliverInbound();
    }

    @Override
    protected Object filterOutboundMessage(Object msg) throws ClosedChannelException {
        if (lingering != null && outputShutdown) {
            throw new ClosedChannelException(); // past the end of stream the close sent
        }
        if (msg instanceof ByteBuf || msg instanceof FileRegion) {
            return msg;
        }
        throw new UnsupportedOperationException("QUIC channels write ByteBuf or FileRegion, got " + msg.getClass().getName());
    }

    /**
     * Hands flushed messages to the stream as far as its capacity reaches ({@link StreamWrites}); the stream's
     * writability brings the rest.
     */
    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        if (stream == null || !active) {
            throw new ClosedChannelException();
        }
        writes.write(in, stream::bytesBeforeUnwritable);
    }

    /** Gives {@code bytes} to the stream, counted for the receipts. */
    private void hand(ByteBuf bytes) {
        receipts.handed(bytes.readableBytes());
        ChannelFuture written = stream.write(bytes);
        streamEnd.handed(written);
        written.addListener(f -> {
            if (!f.isSuccess()) {
                streamWriteFailed(f.cause());
            }
        });
    }

    @Override
    protected void doShutdownOutput() {
        if (stream != null && !outputShutdown) {
            outputShutdown = true;
            streamEnd.end(stream);
        }
    }

    @Override
    protected void doClose() {
        if (!open) {
            return;
        }
        open = false;
        active = false;
        releaseInbound();
        if (keepAlive != null) {
            keepAlive.cancel(false);
        }
        ChannelPromise connecting = takeConnectPromise();
        if (connecting != null) {
            connecting.tryFailure(new ClosedChannelException());
        }
        endConnection();
    }

    /**
     * Tells the QUIC connection behind a closed channel how this end ended, as TCP ends a closed socket: its
     * close code tells the peer whether this end has its whole stream ({@link QuicTransport#NO_ERROR}, which a
     * lingering peer takes as its confirmation) or not ({@link QuicTransport#STOPPED}, a reset). A close whose
     * bytes the peer did not confirm ends it now. A clean close with the peer's end already in closes after a
     * few round trips, in which this end's last receipt may still be sent again (Netty frees a closed
     * connection at once, so a lost CONNECTION_CLOSE is not repeated). A clean close before the peer's end
     * waits for it, as TCP's FIN-WAIT-2: the end brings that close ({@link #streamEnded}); {@link #FIN_WAIT}
     * passing without it resets the connection. A connection shared by several channels ends after the last.
     */
    private void endConnection() {
        if (connection == null) {
            closeDialing();
            return;
        }
        if (!receipts.endConfirmed()) {
            connection.ended(this, endReceived ? QuicConnection.Ending.UNCONFIRMED : QuicConnection.Ending.STOPPED);
        } else {
            connection.ended(this, endReceived ? QuicConnection.Ending.CLEAN : QuicConnection.Ending.WAITING);
        }
    }

    /** A client closed while it dialed: what it opened goes. */
    private void closeDialing() {
        if (dialQuic != null) {
            dialQuic.close(true, QuicTransport.ABORTED, io.netty.buffer.Unpooled.EMPTY_BUFFER);
        }
        if (dialUdp != null) {
            dialUdp.close();
        }
    }

    // ------------------------------------------------------------------ DuplexChannel

    @Override
    protected boolean hasConnection() {
        return stream != null;
    }

    /** Ends this side's reading: what arrives later is read and dropped, so the peer is never held up by it. */
    @Override
    protected void shutdownInput0(ChannelPromise promise) {
        inputShutdown = true;
        releaseInbound(); // and reads the stream again: what comes is dropped
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

    // ------------------------------------------------------------------ connecting (client)

    /** The QUIC connection exists and {@code stream} is open on it for this channel: the channel is active. */
    void connected(QuicConnection connection, QuicStreamChannel stream) {
        this.connection = connection;
        this.quic = connection.quic();
        this.stream = stream;
        this.dialUdp = null;
        this.dialQuic = null;
        connection.add(this, stream.streamId());
        receipts.reportOn(stream.streamId());
        stream.writeAndFlush(QuicWire.preamble(stream.alloc()));
        active = true;
        startKeepAlive(stream.eventLoop());
        ChannelPromise promise = takeConnectPromise();
        if (promise != null && promise.trySuccess()) {
            pipeline().fireChannelActive();
        }
    }

    /** The socket this client dials from, before the connection exists: it closes with the channel. */
    void socketOpened(Channel udp) {
        this.dialUdp = udp;
        if (!open) {
            udp.close();
        }
    }

    /** The QUIC connection this client dialed, before its stream exists. */
    void connectionOpened(QuicChannel quic) {
        this.dialQuic = quic;
        if (!open) {
            quic.close();
        }
    }

    /** A connect failed (any step): the channel closes, the connect's promise fails with {@code cause}. */
    void connectFailed(Throwable cause) {
        failConnect(cause);
    }

    InetSocketAddress bindAddress() {
        return bindAddress;
    }

    // ------------------------------------------------------------------ from the stream and the connection

    /**
     * Application bytes arrived on the stream (the preamble already taken off). After {@code close()} or
     * {@code shutdownInput()} nobody reads them: they are confirmed and dropped, as a uTP connection does, so
     * that the peer's own close is not held up.
     */
    void streamRead(ByteBuf data) {
        receipts.received(quic, data.readableBytes());
        if (!open || inputShutdown || lingering != null) {
            data.release();
            return;
        }
        inbound.add(data, stream);
        deliverInbound();
    }

    /** The peer's end of stream arrived after every byte. */
    void streamEnded() {
        endReceived = true;
        receipts.endReceived(quic);
        if (!open) {
            endConnection(); // closed cleanly and waiting for this end (FIN-WAIT-2)
            return;
        }
        if (lingering != null) {
            lingering.progress();
            return;
        }
        if (open && !inputShutdown) {
            inbound.add(ReadLoop.END);
            deliverInbound();
        }
    }

    /** The stream can take bytes again. */
    void streamWritable() {
        if (open && active && stream.bytesBeforeUnwritable() > 0) {
            ((StreamUnsafe) unsafe()).resumeWrites();
            if (lingering != null) {
                lingering.progress();
            }
        }
    }

    /** A receipt from the peer. */
    void receipt(long receipt) {
        receipts.confirm(receipt);
        if (lingering != null) {
            lingering.progress();
        }
    }

    /** The stream refused bytes it had taken: the peer stopped reading, or the connection is gone. */
    private void streamWriteFailed(Throwable cause) {
        if (!open) {
            return;
        }
        if (lingering != null) {
            lingering.failed("the peer stopped reading (" + cause.getMessage() + ")");
            return;
        }
        pipeline().fireExceptionCaught(new IOException("QUIC stream to " + remote + " failed: " + cause.getMessage(), cause));
        abort0(newPromise());
    }

    /**
     * The QUIC connection closed: {@code why} says how, null if it closed without an error; {@code peerHasAll}
     * when the peer closed it saying it has this end's whole stream (its end included), which confirms it;
     * {@code peerGone} when the peer had every byte sent so far and stopped waiting for the end: for this end's
     * reading that is an end of stream, as a TCP peer's exit is.
     */
    void connectionClosed(IOException why, boolean peerHasAll, boolean peerGone) {
        if (peerHasAll && outputShutdown) {
            receipts.confirmAll();
        }
        if (connectPromise != null && !connectPromise.isDone()) {
            connectFailed(why != null ? why : new ClosedChannelException());
            return;
        }
        if (lingering != null) {
            lingering.progress();
            return;
        }
        if (!open) {
            return;
        }
        if (peerGone && why == null && !endReceived && !inputShutdown) {
            endReceived = true;
            inbound.add(ReadLoop.END); // delivered after the bytes before it; the channel then closes
            deliverInbound();
        } else if (why != null || !endReceived) {
            drainInbound(); // what arrived before the end goes first, then the error, then the close
            if (active) {
                pipeline().fireExceptionCaught(why != null ? why
                        : new IOException("the QUIC connection to " + remote + " closed before its stream ended"));
            }
            releaseInbound();
        }
        closeWhenDrained();
    }

    boolean isConnectionClosed() {
        return connection != null && connection.isClosed();
    }

    /** Whether the peer's end of stream arrived (on the connection's loop). */
    boolean hasPeersEnd() {
        return endReceived;
    }

    // ------------------------------------------------------------------ inbound delivery

    private void deliverInbound() {
        drainInbound();
        closeWhenDrained();
    }

    /** Hands the pipeline what it asked for of what arrived; the channel stays open (see {@link #closeWhenDrained}). */
    private void drainInbound() {
        inbound.drain();
        inbound.resumeIfDrained();
    }

    /** Once the QUIC connection is over, the channel closes as soon as the application has read everything. */
    private void closeWhenDrained() {
        inbound.closeIfOver(isConnectionClosed());
    }

    private void releaseInbound() {
        inbound.release();
        inbound.resumeIfDrained();
    }

    /** Whether the pipeline takes bytes now: open, not closing, still reading. */
    boolean acceptsInbound() {
        return open && lingering == null && !inputShutdown;
    }

    /** The end of stream reached the application. */
    void inputEnded() {
        endInput();
    }

    // ------------------------------------------------------------------ abort, linger, statistics

    /** Closes the QUIC connection with an error (the peer's channel fails) and this channel. */
    ChannelFuture abort() {
        return abortOnLoop();
    }

    private void abort0(ChannelPromise promise) {
        if (connection != null) {
            connection.close(QuicTransport.ABORTED);
        }
        if (lingering != null) {
            lingering.failed("the connection was aborted");
        }
        unsafe().close(promise);
    }

    QuicStreamChannel stream() {
        return stream;
    }

    Receipts receipts() {
        return receipts;
    }

    boolean endOfStreamSent() {
        return outputShutdown;
    }

    /** Ends the stream behind every byte handed to it (the lingering close, once the outbound buffer drained). */
    void sendEndOfStream() {
        if (!outputShutdown) {
            outputShutdown = true;
            streamEnd.end(stream);
        }
    }

    InetSocketAddress remote() {
        return remote;
    }

    void setRemote(InetSocketAddress remote) {
        this.remote = remote;
    }

    boolean isLingering(QuicLinger l) {
        return lingering == l;
    }

    void closeNow(ChannelPromise promise) {
        ((StreamUnsafe) unsafe()).closeNow(promise);
    }

    /** A statistics snapshot; taken on the event loop. */
    TransportStatistics statistics() {
        return statistics.get();
    }

    private TransportStatistics takeStatistics(TransportStatistics last) {
        QuicChannel network = connection == null || connection.reportsConnection(this) ? quic : null;
        return QuicStatistics.of(network, isConnectionClosed(), receipts, implementation(), last);
    }

    private TransportStatistics emptyStatistics() {
        return QuicStatistics.empty(implementation());
    }

    private String implementation() {
        return transport.io().implementation(settings.gsoSegments);
    }

    QuicSettings settings() {
        return settings;
    }

    private final class QuicUnsafe extends StreamUnsafe {
        @Override
        protected String protocol() {
            return "QUIC";
        }

        @Override
        protected boolean connectionStarted() {
            return quic != null || dialUdp != null;
        }

        @Override
        protected void startConnect(InetSocketAddress target) {
            remote = target;
            transport.openClient(QuicSocketChannel.this, target);
        }

        @Override
        protected GracefulClose lingering() {
            return lingering == null ? null : lingering.waiting;
        }

        @Override
        protected boolean canLinger() {
            return stream != null && !isConnectionClosed();
        }

        @Override
        protected java.time.Duration linger() {
            return config.getLinger();
        }

        @Override
        protected void startLingering(ChannelPromise promise) {
            lingering = new QuicLinger(QuicSocketChannel.this, promise, config.getLinger());
            releaseInbound();
            lingering.start();
        }

        @Override
        protected void abort(ChannelPromise promise) {
            abort0(promise);
        }
    }
}
