package io.ferry.transport.quic;

import io.ferry.transport.TransportStatistics;
import io.ferry.transport.spi.AbstractStreamChannel;
import io.ferry.transport.spi.FileRegionChunks;
import io.ferry.transport.spi.HomeLoopGroup;
import io.ferry.transport.spi.ReadLoop;
import io.ferry.transport.spi.StreamChannelConfig;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.FileRegion;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One QUIC connection carrying one bidirectional stream, as a Netty {@code SocketChannel}: ordered bytes,
 * writability, half-close, auto-read, a lingering close and abort, like every Ferry connection. It lives on
 * the event loop of its QUIC connection (a client's own UDP socket, or the listener's) and relays between
 * its pipeline and the codec's {@link QuicStreamChannel}: written bytes go to the stream only as far as the
 * stream's flow-control capacity reaches, the rest waiting in this channel's outbound buffer (its
 * writability is the user's backpressure); the stream is read ahead until {@link #PAUSE_AT} bytes wait for
 * the pipeline. A graceful {@code close()} ends the stream and completes once the peer's receipts
 * ({@link QuicWire}) confirm every byte, or fails with {@link io.ferry.transport.UndeliveredDataException}.
 */
public final class QuicSocketChannel extends AbstractStreamChannel implements HomeLoopGroup.HomeLoop {

    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);
    /** The channel that presents a QUIC connection, on the connection (for its streams' and its own events). */
    static final io.netty.util.AttributeKey<QuicSocketChannel> OWNER =
            io.netty.util.AttributeKey.valueOf(QuicSocketChannel.class, "owner");
    /** Bytes read ahead from the stream for the pipeline before the stream stops being read (its window then closes). */
    static final long PAUSE_AT = 1 << 20;
    static final long RESUME_AT = 256 << 10;
    /** How long a closed channel waits for the peer's end of stream before resetting the connection (Linux's tcp_fin_timeout). */
    static final java.time.Duration FIN_WAIT = java.time.Duration.ofSeconds(60);
    /** The most one write hands to the stream from a file region. */
    private static final int FILE_CHUNK = 256 << 10;

    private final QuicTransport transport;
    private final QuicSettings settings;
    private final StreamChannelConfig config;
    private final Receipts receipts = new Receipts();
    private final ArrayDeque<Object> inbound = new ArrayDeque<>();
    private final ReadLoop reads = new ReadLoop(this);
    private final ReadLoop.Inbound inboundSide = new InboundSide();
    private long queuedInbound;
    private boolean delivering;
    private boolean streamPaused;

    /** A client's own UDP socket; null for an accepted connection. */
    private Channel udp;
    private QuicChannel quic;
    private QuicStreamChannel stream;
    private InetSocketAddress remote;
    private InetSocketAddress bindAddress;
    private ChannelPromise connectPromise;
    private ScheduledFuture<?> connectTimeout;
    private QuicLinger lingering;
    private boolean outputShutdown;
    private boolean endReceived;
    private boolean connectionClosed;
    private ScheduledFuture<?> keepAlive;
    private volatile TransportStatistics lastStatistics;

    /** A client connection, not yet connected. */
    QuicSocketChannel(QuicTransport transport, QuicSettings settings) {
        super(null);
        this.transport = transport;
        this.settings = settings;
        this.config = newConfig();
    }

    /** A connection a listener accepted: its stream arrived with Ferry's preamble. */
    QuicSocketChannel(QuicServerChannel parent, QuicTransport transport, QuicSettings settings, QuicStreamChannel stream) {
        super(parent);
        this.transport = transport;
        this.settings = settings;
        this.config = newConfig();
        this.quic = stream.parent();
        this.stream = stream;
        this.remote = (InetSocketAddress) quic.remoteSocketAddress();
        this.active = true;
        startKeepAlive(stream.eventLoop());
    }

    /** Every third of the idle timeout a receipt goes, so that an idle connection lives as long as its peer answers. */
    private void startKeepAlive(EventLoop loop) {
        long period = settings.idleTimeout.toMillis() / 3;
        keepAlive = loop.scheduleAtFixedRate(() -> {
            if (quic != null && !connectionClosed && open) {
                receipts.keepAlive(quic);
            }
        }, period, period, TimeUnit.MILLISECONDS);
    }

    private StreamChannelConfig newConfig() {
        return new StreamChannelConfig(this, () -> settings.streamWindow, () -> settings.streamWindow, reads::autoReadCleared);
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

    /** An accepted connection lives on its QUIC connection's loop; a client opens its socket on any. */
    @Override
    public EventLoop homeLoop() {
        return parent() == null || stream == null ? null : stream.eventLoop();
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        EventLoop home = homeLoop();
        return home == null || home == loop;
    }

    @Override
    protected SocketAddress localAddress0() {
        if (udp != null) {
            return udp.localAddress();
        }
        return quic != null ? quic.localSocketAddress() : bindAddress;
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
        if (parent() != null || quic != null || connectPromise != null) {
            throw new IllegalStateException("a QUIC connection binds before it connects, once");
        }
        if (!(localAddress instanceof InetSocketAddress)) {
            throw new IllegalArgumentException("QUIC binds to an InetSocketAddress, got " + localAddress);
        }
        bindAddress = (InetSocketAddress) localAddress;
    }

    @Override
    protected void doBeginRead() {
        reads.requested();
        deliverInbound();
    }

    @Override
    protected Object filterOutboundMessage(Object msg) throws ClosedChannelException {
        if (lingering != null) {
            throw new ClosedChannelException(); // written after close(): not part of what the close delivers
        }
        if (msg instanceof ByteBuf || msg instanceof FileRegion) {
            return msg;
        }
        throw new UnsupportedOperationException("QUIC channels write ByteBuf or FileRegion, got " + msg.getClass().getName());
    }

    /**
     * Hands flushed messages to the stream as far as its capacity reaches, so that the stream never queues
     * (its end-of-stream then always follows every byte); the stream's writability brings the rest.
     */
    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        if (stream == null || !active) {
            throw new ClosedChannelException();
        }
        for (Object msg; (msg = in.current()) != null; ) {
            long capacity = stream.bytesBeforeUnwritable();
            if (capacity <= 0) {
                break;
            }
            if (msg instanceof ByteBuf buf) {
                int n = buf.readableBytes();
                int take = (int) Math.min(n, capacity);
                if (take > 0) {
                    hand(buf.retainedSlice(buf.readerIndex(), take));
                }
                if (take == n) {
                    in.remove();
                } else {
                    in.removeBytes(take);
                }
            } else {
                FileRegion region = (FileRegion) msg;
                ByteBuf chunk = FileRegionChunks.next(region, alloc(), (int) Math.min(capacity, FILE_CHUNK));
                if (chunk != null) {
                    int n = chunk.readableBytes();
                    hand(chunk);
                    in.progress(n);
                }
                if (region.transferred() >= region.count()) {
                    in.remove();
                }
            }
        }
    }

    private void hand(ByteBuf bytes) {
        receipts.handed(bytes.readableBytes());
        stream.write(bytes).addListener(f -> {
            if (!f.isSuccess()) {
                streamWriteFailed(f.cause());
            }
        });
    }

    @Override
    protected void doShutdownOutput() {
        if (stream != null && !outputShutdown) {
            outputShutdown = true;
            stream.shutdownOutput();
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
        if (connectTimeout != null) {
            connectTimeout.cancel(false);
        }
        if (keepAlive != null) {
            keepAlive.cancel(false);
        }
        ChannelPromise connecting = connectPromise;
        connectPromise = null;
        if (connecting != null) {
            connecting.tryFailure(new ClosedChannelException());
        }
        endConnection();
    }

    /**
     * Ends the QUIC connection behind a closed channel, as TCP ends a closed socket. Its close code tells the
     * peer whether this end has its whole stream ({@link QuicTransport#NO_ERROR}, which a lingering peer takes
     * as its confirmation) or not ({@link QuicTransport#STOPPED}, a reset). A close whose bytes the peer did not
     * confirm ends it now. A clean close with the peer's end already in closes after a few round trips, in which
     * this end's last receipt may still be sent again (Netty frees a closed connection at once, so a lost
     * CONNECTION_CLOSE is not repeated). A clean close before the peer's end waits for it, as TCP's FIN-WAIT-2:
     * the end brings that close ({@link #streamEnded}); {@link #FIN_WAIT} passing without it resets the connection.
     */
    private void endConnection() {
        if (quic == null) {
            closeUdp();
            return;
        }
        if (connectionClosed) {
            return;
        }
        if (!receipts.endConfirmed()) {
            reset(endReceived ? QuicTransport.NO_ERROR : QuicTransport.STOPPED);
        } else if (endReceived) {
            transport.drain(quic, drainTime());
        } else {
            stream.eventLoop().schedule(() -> reset(QuicTransport.GONE), FIN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Closes the QUIC connection now with {@code code}. */
    private void reset(int code) {
        if (quic != null && !connectionClosed) {
            connectionClosed = true;
            quic.close(true, code, io.netty.buffer.Unpooled.EMPTY_BUFFER);
        }
    }

    /** Four round trips (two probe timeouts), at least 100 ms and at most 2 s. */
    private long drainTime() {
        io.netty.handler.codec.quic.QuicConnectionPathStats path = quic.isActive() ? quic.collectPathStats(0).getNow() : null;
        long rttMillis = path == null ? 100 : path.rtt() / 1_000_000;
        return Math.max(100, Math.min(2_000, 4 * rttMillis));
    }

    private void closeUdp() {
        if (udp != null) {
            udp.close();
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
        releaseInbound();
        resumeStream();
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

    /** The client's UDP socket is bound and the QUIC handshake finished with {@code stream} open: the channel is active. */
    void connected(Channel udp, QuicStreamChannel stream) {
        this.stream = stream;
        this.quic = stream.parent();
        stream.writeAndFlush(QuicWire.preamble(stream.alloc()));
        active = true;
        startKeepAlive(stream.eventLoop());
        ChannelPromise promise = connectPromise;
        connectPromise = null;
        if (promise != null && promise.trySuccess()) {
            pipeline().fireChannelActive();
        }
        this.udp = udp;
    }

    /** The client's socket, before the connection exists: it closes with the channel. */
    void socketOpened(Channel udp) {
        this.udp = udp;
        if (!open) {
            udp.close();
        }
    }

    /** The client's QUIC connection, before its stream exists. */
    void connectionOpened(QuicChannel quic) {
        this.quic = quic;
        if (!open) {
            quic.close();
        }
    }

    /** A connect failed (any step): the channel closes, the connect's promise fails with {@code cause}. */
    void connectFailed(Throwable cause) {
        ChannelPromise promise = connectPromise;
        connectPromise = null;
        if (promise != null) {
            promise.tryFailure(cause);
        }
        if (open) {
            unsafe().close(unsafe().voidPromise());
        }
    }

    boolean isConnecting() {
        return connectPromise != null && !connectPromise.isDone();
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
        inbound.add(data);
        queuedInbound += data.readableBytes();
        if (queuedInbound > PAUSE_AT && !streamPaused) {
            streamPaused = true;
            stream.config().setAutoRead(false);
        }
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
            ((QuicUnsafe) unsafe()).resumeWrites();
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
        connectionClosed = true;
        if (peerHasAll && outputShutdown) {
            receipts.confirmAll();
        }
        closeUdp();
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
            deliverInbound(); // what arrived before the end goes first
            if (active) {
                pipeline().fireExceptionCaught(why != null ? why
                        : new IOException("the QUIC connection to " + remote + " closed before its stream ended"));
            }
            releaseInbound();
        }
        closeWhenDrained();
    }

    boolean isConnectionClosed() {
        return connectionClosed;
    }

    /** Whether the peer's end of stream arrived (on the connection's loop). */
    boolean hasPeersEnd() {
        return endReceived;
    }

    // ------------------------------------------------------------------ inbound delivery

    private void deliverInbound() {
        if (delivering || !isRegistered()) {
            return;
        }
        delivering = true;
        try {
            reads.drain(inbound, inboundSide);
        } finally {
            delivering = false;
        }
        if (streamPaused && queuedInbound < RESUME_AT) {
            resumeStream();
        }
        closeWhenDrained();
    }

    private void resumeStream() {
        if (streamPaused && stream != null) {
            streamPaused = false;
            stream.config().setAutoRead(true);
        }
    }

    private void closeWhenDrained() {
        if (connectionClosed && open && inbound.isEmpty() && !delivering) {
            if (isRegistered()) {
                reads.complete();
            }
            unsafe().close(unsafe().voidPromise());
        }
    }

    private void releaseInbound() {
        for (Object o; (o = inbound.poll()) != null; ) {
            ReferenceCountUtil.release(o);
        }
        queuedInbound = 0;
        resumeStream();
    }

    private void endOfInput() {
        inputShutdown = true;
        if (config.isAllowHalfClosure()) {
            pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
            pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
        } else {
            unsafe().close(unsafe().voidPromise());
        }
    }

    private final class InboundSide implements ReadLoop.Inbound {
        @Override
        public boolean accepting() {
            return open && lingering == null && !inputShutdown;
        }

        @Override
        public void endOfInput() {
            QuicSocketChannel.this.endOfInput();
        }

        @Override
        public void consumed(int bytes) {
            queuedInbound -= bytes;
        }

        @Override
        public boolean moreMayCome() {
            return !inbound.isEmpty();
        }

        @Override
        public boolean batchContinues() {
            return false;
        }
    }

    // ------------------------------------------------------------------ abort, linger, statistics

    /** Closes the QUIC connection with an error (the peer's channel fails) and this channel. */
    io.netty.channel.ChannelFuture abort() {
        ChannelPromise promise = newPromise();
        if (eventLoop().inEventLoop()) {
            abort0(promise);
        } else {
            eventLoop().execute(() -> abort0(promise));
        }
        return promise;
    }

    private void abort0(ChannelPromise promise) {
        reset(QuicTransport.ABORTED);
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
            stream.shutdownOutput();
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
        ((QuicUnsafe) unsafe()).closeNow(promise);
    }

    /** A statistics snapshot; computed on the event loop. */
    TransportStatistics statistics() {
        if (!eventLoop().inEventLoop()) {
            try {
                return eventLoop().submit(this::statistics0).get(1, TimeUnit.SECONDS);
            } catch (Exception unavailable) {
                TransportStatistics last = lastStatistics;
                return last != null ? last : QuicStatistics.empty(implementation());
            }
        }
        return statistics0();
    }

    private TransportStatistics statistics0() {
        TransportStatistics s = QuicStatistics.of(quic, connectionClosed, receipts, implementation(), lastStatistics);
        lastStatistics = s;
        return s;
    }

    private String implementation() {
        return transport.io().implementation(settings.gsoSegments);
    }

    QuicSettings settings() {
        return settings;
    }

    private final class QuicUnsafe extends AbstractUnsafe {
        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            if (promise.isCancelled() || !ensureOpen(promise)) {
                return;
            }
            if (connectPromise != null) {
                promise.setFailure(new ConnectionPendingException());
                return;
            }
            if (quic != null) {
                promise.setFailure(new AlreadyConnectedException());
                return;
            }
            if (!(remoteAddress instanceof InetSocketAddress target)) {
                promise.setFailure(new IllegalArgumentException("QUIC needs an InetSocketAddress, got " + remoteAddress));
                return;
            }
            if (localAddress != null) {
                try {
                    doBind(localAddress);
                } catch (RuntimeException e) {
                    promise.setFailure(e);
                    return;
                }
            }
            connectPromise = promise;
            remote = target;
            int timeoutMillis = config.getConnectTimeoutMillis();
            if (timeoutMillis > 0) {
                connectTimeout = eventLoop().schedule(() -> {
                    if (connectPromise == promise && !promise.isDone()) {
                        connectFailed(new ConnectTimeoutException("connection timed out after " + timeoutMillis + " ms: " + target));
                    }
                }, timeoutMillis, TimeUnit.MILLISECONDS);
            }
            promise.addListener(f -> {
                if (connectTimeout != null) {
                    connectTimeout.cancel(false);
                    connectTimeout = null;
                }
                if (f.isCancelled()) {
                    connectPromise = null;
                    close(voidPromise());
                }
            });
            transport.openClient(QuicSocketChannel.this, target);
        }

        void resumeWrites() {
            flush0();
        }

        /** A graceful close of an established connection lingers (see the class comment); any other close is Netty's own. */
        @Override
        public void close(ChannelPromise promise) {
            if (lingering != null && lingering.waiting.join(promise)) {
                return;
            }
            if (lingering == null && open && active && stream != null && !connectionClosed) {
                if (config.getLinger().isZero()) {
                    abort0(promise);
                } else if (promise.setUncancellable()) {
                    lingering = new QuicLinger(QuicSocketChannel.this, promise, config.getLinger());
                    releaseInbound();
                    lingering.start();
                }
                return;
            }
            super.close(promise);
        }

        void closeNow(ChannelPromise promise) {
            super.close(promise);
        }
    }
}
