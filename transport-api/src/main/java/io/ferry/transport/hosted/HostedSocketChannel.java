package io.ferry.transport.hosted;

import io.ferry.transport.Bootstrapping;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.spi.CloseOnLoopShutdown;
import io.ferry.transport.spi.ReadLoop;
import io.ferry.transport.spi.AbstractStreamChannel;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.FileRegion;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.ChannelOutputShutdownException;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.internal.StringUtil;

import java.net.SocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.ArrayList;
import java.util.List;

/**
 * A Ferry connection on an event loop that is not its transport's (see {@link HostedChannels}). It carries
 * a connection of the transport, which stays on the transport's loop and reads ahead; its read batches
 * cross to this channel's loop, which delivers them in Netty's read loops. Written messages are handed on
 * while the carried connection is writable, the rest waiting in this channel's outbound buffer (so its
 * writability is the user's backpressure); a write completes when the carried connection has taken the
 * message ({@link HandedWrites}), as a kernel socket's completes when the kernel has the bytes. Close,
 * half-close, linger and abort are the carried connection's.
 */
public final class HostedSocketChannel extends AbstractStreamChannel {

    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);
    /**
     * The carried connection reads ahead (auto-read on) until this many bytes wait for this channel's
     * pipeline, and again once they are below {@link #RESUME_AT}: the crossing then costs no round trip
     * per read, and a host that stops reading stops the carried connection, whose transport's window then
     * stops the sender.
     */
    static final long PAUSE_AT = 2 << 20;
    static final long RESUME_AT = 512 << 10;

    private final Bootstrapping carrier;
    private final SocketChannel carried;
    private final HostedConfig config;
    private final Relay relay = new Relay(this);
    private final CloseOnLoopShutdown loopShutdown = new CloseOnLoopShutdown(this, this::closeWithLoop);
    /** This channel's loop is shutting down: the close completes at once, without the carried close's answer. */
    private boolean closingWithLoop;
    private final Object lock = new Object();
    /** What the carried connection reported before this channel had a loop; null once it has one. */
    private List<Runnable> early = new ArrayList<>();
    private volatile boolean outputShutdown;
    private SocketAddress bindAddress;
    /** This channel's loop only. */
    private ChannelPromise connectPromise;
    private boolean connectStarted;
    private boolean waitingForCarried;
    /** What the carried connection read and the pipeline has not had yet, then possibly {@link ReadLoop#END}; this loop. */
    private final ArrayDeque<Object> inbound = new ArrayDeque<>();
    private final ReadLoop reads = new ReadLoop(this);
    private boolean deliveringInbound;
    private boolean closeWhenDrained;
    /** Bytes read by the carried connection and not yet in this channel's pipeline (any thread). */
    private final AtomicLong queuedBytes = new AtomicLong();
    /**
     * Whether the carried connection's reading is paused because {@link #queuedBytes} passed {@link #PAUSE_AT}.
     * Set with the pause on the carried connection's loop; whoever clears it owes that loop the resume, so
     * the pause and the resume reach the connection in the order they were decided.
     */
    private final AtomicBoolean carriedPaused = new AtomicBoolean();
    private final HandedWrites writes;
    /** A close or a half-close waiting for the handed messages' verdicts. */
    private Runnable closeWhenHanded;
    private ChannelPromise shutdownWhenHanded;

    /** A client over {@code carrier}, not yet connected. */
    HostedSocketChannel(Bootstrapping carrier) {
        super(null);
        this.carrier = carrier;
        this.carried = carrier.channelFactory().newChannel();
        this.config = new HostedConfig(this, carried.config());
        this.writes = new HandedWrites(carried, this::post, this::afterVerdicts);
        prepareCarried();
    }

    /** A connection a {@link HostedServerChannel} accepted: {@code carried} is connected, registered, on its loop. */
    HostedSocketChannel(HostedServerChannel parent, SocketChannel carried) {
        super(parent);
        this.carrier = null;
        this.carried = carried;
        this.config = new HostedConfig(this, carried.config());
        this.writes = new HandedWrites(carried, this::post, this::afterVerdicts);
        prepareCarried();
        carried.pipeline().addLast(relay);
        active = true;
    }

    private void prepareCarried() {
        carried.config().setOption(io.netty.channel.ChannelOption.ALLOW_HALF_CLOSURE, true);
        attr(FerryChannels.TRANSPORT).set(carried.attr(FerryChannels.TRANSPORT).get());
    }

    /** Bytes the carried connection read that this channel's pipeline has not had yet (any thread). */
    long queuedBytes() {
        return queuedBytes.get();
    }

    /** The Ferry connection this channel carries (on the transport's loop). */
    public SocketChannel carried() {
        return carried;
    }

    // ---- from the carried connection (any thread) ----

    /** Runs {@code task} on this channel's loop, or once it has one; false if that loop no longer runs tasks. */
    boolean post(Runnable task) {
        synchronized (lock) {
            if (early != null) {
                early.add(task);
                return true;
            }
        }
        try {
            eventLoop().execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false; // the loop terminated: its shutdown closed this channel (CloseOnLoopShutdown)
        }
    }

    /** One read batch of the carried connection (its bytes counted in {@link #queuedBytes} already). */
    void deliver(List<Object> batch) {
        if (!open) {
            release(batch);
            return;
        }
        inbound.addAll(batch);
        deliverInbound();
    }

    /**
     * Bytes now on their way to this channel, counted before they are posted (the carried connection's loop):
     * past {@link #PAUSE_AT} its reading pauses until this channel's pipeline has taken them below
     * {@link #RESUME_AT}. A batch of bytes is still to be consumed after the pause, so the resume cannot be missed.
     */
    void queue(long bytes) {
        if (queuedBytes.addAndGet(bytes) > PAUSE_AT && bytes > 0 && carried.config().isAutoRead()) {
            carriedPaused.set(true);
            carried.config().setAutoRead(false);
        }
    }

    /**
     * Hands what the carried connection read to the pipeline in Netty's read loops ({@link ReadLoop}): with
     * auto-read off only after a {@code read()}, one loop per call, messages of this channel's allocator's
     * size. The end of the input is an event, delivered when the bytes before it are, read pending or not.
     */
    private void deliverInbound() {
        if (deliveringInbound || !isRegistered()) {
            return;
        }
        deliveringInbound = true;
        try {
            reads.drain(inbound, inboundSide);
        } finally {
            deliveringInbound = false;
        }
        if (closeWhenDrained && open && inbound.isEmpty()) {
            unsafe().close(voidPromise());
        }
    }

    private final ReadLoop.Inbound inboundSide = new ReadLoop.Inbound() {
        @Override
        public boolean accepting() {
            return open;
        }

        @Override
        public void endOfInput() {
            HostedSocketChannel.this.endOfInput();
        }

        @Override
        public void consumed(int bytes) {
            HostedSocketChannel.this.consumed(bytes);
        }

        @Override
        public boolean moreMayCome() {
            return !inbound.isEmpty() && inbound.peek() != ReadLoop.END;
        }

        @Override
        public boolean batchContinues() {
            return false;
        }
    };

    private void consumed(long bytes) {
        if (queuedBytes.addAndGet(-bytes) < RESUME_AT && carriedPaused.compareAndSet(true, false)) {
            carried.eventLoop().execute(() -> carried.config().setAutoRead(true)); // after the pause, on its loop
        }
    }

    private void endOfInput() {
        if (config.isAllowHalfClosure()) {
            pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
            pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
        } else {
            unsafe().close(voidPromise());
        }
    }

    private void release(List<Object> batch) {
        for (Object msg : batch) {
            if (msg instanceof ByteBuf) {
                consumed(((ByteBuf) msg).readableBytes());
            }
            ReferenceCountUtil.release(msg);
        }
    }

    /** Auto-read was switched off (from the config): a {@code read()} asked for before no longer stands. */
    void autoReadCleared() {
        if (isRegistered()) {
            if (eventLoop().inEventLoop()) {
                reads.autoReadCleared();
            } else {
                eventLoop().execute(reads::autoReadCleared);
            }
        }
    }

    /** A half-close or a close waiting for the handed writes' verdicts goes on once they are all in. */
    private void afterVerdicts() {
        if (writes.isEmpty()) {
            ChannelPromise shutdown = shutdownWhenHanded;
            shutdownWhenHanded = null;
            if (shutdown != null && closeWhenHanded == null) {
                ((AbstractUnsafe) unsafe()).shutdownOutput(shutdown);
            }
        }
        closeIfSettled();
    }

    /** Ends this channel's close once the carried connection has closed and every handed write has its verdict. */
    private void closeIfSettled() {
        Runnable close = closeWhenHanded;
        if (close != null && writes.isEmpty() && carried.closeFuture().isDone()) {
            closeWhenHanded = null;
            close.run();
        }
    }


    void carriedInputShutdown() {
        if (open) {
            inbound.add(ReadLoop.END);
            deliverInbound();
        }
    }

    void carriedWritabilityChanged() {
        if (waitingForCarried && carried.isWritable()) {
            waitingForCarried = false;
            ((HostedUnsafe) unsafe()).resumeFlush();
        }
    }

    void carriedClosed() {
        if (!open) {
            return;
        }
        if (inbound.isEmpty()) {
            unsafe().close(voidPromise());
        } else {
            closeWhenDrained = true; // once the application has read what arrived before, as a socket's end does
            deliverInbound();
        }
    }

    private void connected(ChannelFuture f) {
        ChannelPromise promise = connectPromise;
        connectPromise = null;
        if (promise == null || !open) { // closed while connecting (doClose failed the promise)
            carried.close();
            return;
        }
        if (!f.isSuccess()) {
            promise.tryFailure(f.cause());
            unsafe().close(voidPromise());
            return;
        }
        active = true;
        if (promise.trySuccess()) {
            pipeline().fireChannelActive();
        }
    }

    // ---- the channel ----

    @Override
    protected void doRegister() {
        loopShutdown.registered();
        eventLoop().execute(this::runEarly);
    }

    /**
     * Runs what the carried connection reported before this channel had a loop, then lets later reports go
     * to the loop directly. The list stays open until it is empty, so a report that comes while the early
     * ones run still queues behind them: handing the early ones to the loop one by one after closing the list
     * let a read batch from the carried loop overtake them (a server's first bytes out of order).
     */
    private void runEarly() {
        while (true) {
            List<Runnable> tasks;
            synchronized (lock) {
                tasks = early;
                if (tasks == null) {
                    return;
                }
                if (tasks.isEmpty()) {
                    early = null;
                    return;
                }
                early = new ArrayList<>();
            }
            tasks.forEach(Runnable::run);
        }
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return true;
    }

    @Override
    public HostedConfig config() {
        return config;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    protected SocketAddress localAddress0() {
        return carried.localAddress();
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return carried.remoteAddress();
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        bindAddress = localAddress; // the carried connection binds it when it connects
    }

    @Override
    protected void doClose() {
        open = false;
        loopShutdown.closed();
        writes.clear();
        for (Object o; (o = inbound.poll()) != null; ) {
            if (o instanceof ByteBuf) {
                consumed(((ByteBuf) o).readableBytes());
            }
            ReferenceCountUtil.release(o);
        }
        ChannelPromise promise = connectPromise;
        connectPromise = null;
        if (promise != null) {
            promise.tryFailure(new ClosedChannelException());
        }
        if (carried.isRegistered()) {
            carried.close();
        } else if (!connectStarted) {
            carried.unsafe().closeForcibly(); // never handed to a loop
        } // else the connect is under way: connected() closes it
    }

    @Override
    protected void doBeginRead() {
        reads.requested();
        deliverInbound();
    }

    @Override
    protected Object filterOutboundMessage(Object msg) throws Exception {
        if (outputShutdown) {
            throw new ChannelOutputShutdownException("Channel output shutdown");
        }
        if (msg instanceof ByteBuf || msg instanceof FileRegion) {
            return msg;
        }
        throw new UnsupportedOperationException("unsupported message type: " + StringUtil.simpleClassName(msg)
                + " (expected: ByteBuf or FileRegion)");
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        if (writes.hand(in)) {
            waitingForCarried = true;
        }
    }

    @Override
    protected void doShutdownOutput() {
        outputShutdown = true;
        carried.shutdownOutput();
    }

    @Override
    public boolean isInputShutdown() {
        return carried.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShutdown || carried.isOutputShutdown();
    }

    @Override
    protected boolean hasConnection() {
        return isActive();
    }

    @Override
    protected void shutdownInput0(ChannelPromise promise) {
        carried.shutdownInput().addListener(f -> complete(f, promise));
    }

    /** Half-closes once the handed messages' verdicts are in (their promises then tell what became of them). */
    @Override
    protected void shutdownOutput0(ChannelPromise promise) {
        outputShutdown = true; // later writes fail
        if (writes.isEmpty()) {
            ((AbstractUnsafe) unsafe()).shutdownOutput(promise);
        } else if (shutdownWhenHanded == null) {
            shutdownWhenHanded = promise;
        } else {
            shutdownWhenHanded.addListener(f -> complete(f, promise));
        }
    }

    private static void complete(io.netty.util.concurrent.Future<?> f, ChannelPromise promise) {
        if (f.isSuccess()) {
            promise.trySuccess();
        } else {
            promise.tryFailure(f.cause());
        }
    }

    /** Closes this channel now, its loop shutting down ({@link CloseOnLoopShutdown}). */
    private void closeWithLoop() {
        closingWithLoop = true;
        unsafe().close(unsafe().voidPromise());
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new HostedUnsafe();
    }

    private final class HostedUnsafe extends AbstractUnsafe {

        void resumeFlush() {
            flush0();
        }

        /**
         * Closes the carried connection (what it took it delivers as its close does; the writes it had not
         * taken fail) and ends this channel's close once that close is done and each handed write has its
         * verdict: the close future then means what a socket's means, and each write's promise tells what
         * became of it.
         */
        @Override
        protected Executor prepareToClose() {
            if (closingWithLoop) {
                return null; // doClose closes the carried connection; its answer could no longer reach this loop
            }
            if (!carried.isRegistered()) {
                if (writes.isEmpty() || !carried.closeFuture().isDone()) {
                    return null; // never connected, or connecting: connected() closes it
                }
                // closed by itself with writes on their way to it: they fail there (and let go of their
                // buffers) before this close fails their promises, or a buffer's count is still the
                // carried write's when its promise says the write is over
                return task -> {
                    closeWhenHanded = task;
                    closeIfSettled();
                };
            }
            carried.close();
            return task -> {
                closeWhenHanded = task;
                carried.closeFuture().addListener(f -> post(HostedSocketChannel.this::closeIfSettled));
            };
        }

        @Override
        public void connect(SocketAddress remote, SocketAddress local, ChannelPromise promise) {
            if (!promise.setUncancellable() || !ensureOpen(promise)) {
                return;
            }
            if (connectPromise != null) {
                promise.setFailure(new ConnectionPendingException());
                return;
            }
            if (active || carrier == null) {
                promise.setFailure(new AlreadyConnectedException());
                return;
            }
            connectPromise = promise;
            connectStarted = true;
            SocketAddress from = local != null ? local : bindAddress;
            Bootstrap b = new Bootstrap().group(carrier.group()).channelFactory(() -> carried).handler(relay);
            ChannelFuture f = from == null ? b.connect(remote) : b.connect(remote, from);
            f.addListener(done -> post(() -> connected(f)));
        }
    }
}
