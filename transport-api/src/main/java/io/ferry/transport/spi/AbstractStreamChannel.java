package io.ferry.transport.spi;

import io.netty.channel.AbstractChannel;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The base of Ferry's stream connections built on Netty's {@link AbstractChannel} (uTP, striped, hosted):
 * what makes each a {@link SocketChannel} in the same way. Addresses are {@link InetSocketAddress}es;
 * a half-close runs on the event loop, fails with {@link NotYetConnectedException} before the
 * transport's connection exists (with {@link ClosedChannelException} once the channel closed), and
 * {@link #shutdown()} ends output, then input. A leaf says whether its connection exists and how it ends
 * each direction, as Netty's {@code AbstractEpollStreamChannel} leaves {@code EpollSocketChannel} little
 * more than its socket.
 */
public abstract class AbstractStreamChannel extends AbstractChannel implements SocketChannel, UserSpaceStream {

    /** False once the channel closed; the leaf clears it in its close. */
    protected volatile boolean open = true;
    /** True while the transport's connection is established; the leaf sets it when it is. */
    protected volatile boolean active;
    /** True once this side stopped reading: the peer's end of stream arrived, or {@link #shutdownInput()}. */
    protected volatile boolean inputShutdown;
    /** A client's connect in progress (event loop); null before and after. */
    protected ChannelPromise connectPromise;
    private io.netty.util.concurrent.ScheduledFuture<?> connectTimeout;

    protected AbstractStreamChannel(Channel parent) {
        super(parent);
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && active;
    }

    @Override
    public boolean isInputShutdown() {
        return inputShutdown || !isActive();
    }

    /** A stream connection is not disconnected and reconnected: a disconnect closes it, as Netty's TCP channels do. */
    @Override
    protected void doDisconnect() throws Exception {
        doClose();
    }

    /** The listener that accepted this connection (every Ferry listener is a {@link ServerSocketChannel}), or null. */
    @Override
    public ServerSocketChannel parent() {
        Channel p = super.parent();
        return p instanceof ServerSocketChannel listener ? listener : null;
    }

    /** Whether the transport's connection exists yet (a half-close needs it); read on the event loop. */
    protected abstract boolean hasConnection();

    /** Ends this side's reading; on the event loop, the connection present. Completes {@code promise}. */
    protected abstract void shutdownInput0(ChannelPromise promise);

    /** Ends this side's writing behind what was written; on the event loop, the connection present. Completes {@code promise}. */
    protected abstract void shutdownOutput0(ChannelPromise promise);

    @Override
    public InetSocketAddress localAddress() {
        SocketAddress a = super.localAddress();
        return a instanceof InetSocketAddress inet ? inet : null;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        SocketAddress a = super.remoteAddress();
        return a instanceof InetSocketAddress inet ? inet : null;
    }

    @Override
    public final ChannelFuture shutdownInput() {
        return shutdownInput(newPromise());
    }

    @Override
    public final ChannelFuture shutdownInput(ChannelPromise promise) {
        return halfClose(promise, this::shutdownInput0);
    }

    @Override
    public final ChannelFuture shutdownOutput() {
        return shutdownOutput(newPromise());
    }

    @Override
    public final ChannelFuture shutdownOutput(ChannelPromise promise) {
        return halfClose(promise, this::shutdownOutput0);
    }

    @Override
    public final boolean isShutdown() {
        return isInputShutdown() && isOutputShutdown();
    }

    @Override
    public final ChannelFuture shutdown() {
        return shutdown(newPromise());
    }

    @Override
    public final ChannelFuture shutdown(ChannelPromise promise) {
        return shutdownBoth(this, promise);
    }

    private ChannelFuture halfClose(ChannelPromise promise, Consumer<ChannelPromise> action) {
        if (!isRegistered()) {
            promise.tryFailure(isOpen() ? new NotYetConnectedException() : new ClosedChannelException());
            return promise;
        }
        EventLoop loop = eventLoop();
        if (loop.inEventLoop()) {
            if (hasConnection()) {
                action.accept(promise);
            } else {
                promise.tryFailure(isOpen() ? new NotYetConnectedException() : new ClosedChannelException());
            }
        } else {
            loop.execute(() -> halfClose(promise, action));
        }
        return promise;
    }

    /** A connect failed (any step): its promise fails with {@code cause} and the channel closes. */
    protected final void failConnect(Throwable cause) {
        ChannelPromise promise = connectPromise;
        connectPromise = null;
        if (promise != null) {
            promise.tryFailure(cause);
        }
        if (open) {
            unsafe().close(unsafe().voidPromise());
        }
    }

    /** Whether a connect is in progress. */
    public final boolean isConnecting() {
        return connectPromise != null && !connectPromise.isDone();
    }

    /** Takes the pending connect's promise (null if none) and stops its timer: the leaf completes it. */
    protected final ChannelPromise takeConnectPromise() {
        ChannelPromise promise = connectPromise;
        connectPromise = null;
        if (connectTimeout != null) {
            connectTimeout.cancel(false);
            connectTimeout = null;
        }
        return promise;
    }

    /** Aborts from any thread: the unsafe's {@code abort} runs on the event loop (the peer's channel fails, this one closes). */
    protected final ChannelFuture abortOnLoop() {
        ChannelPromise promise = newPromise();
        StreamUnsafe u = (StreamUnsafe) unsafe();
        if (eventLoop().inEventLoop()) {
            u.abort(promise);
        } else {
            eventLoop().execute(() -> u.abort(promise));
        }
        return promise;
    }

    /** The peer's end of stream reached the application: half-closed if allowed, else the channel closes. */
    protected final void endInput() {
        inputShutdown = true;
        if (config().isAllowHalfClosure()) {
            pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
            pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
        } else {
            unsafe().close(unsafe().voidPromise());
        }
    }

    /**
     * The unsafe of a stream connection: a client's connect (checked, timed by {@code CONNECT_TIMEOUT_MILLIS},
     * cancellable as Netty's NIO channels' are) and a close that lingers while an established connection
     * delivers what it holds. The leaf starts the transport's connect and says how it lingers and aborts.
     */
    protected abstract class StreamUnsafe extends AbstractUnsafe {

        /** The protocol's name in errors ("uTP", "QUIC"). */
        protected abstract String protocol();

        /** Whether the transport's connection exists or is being made (a second connect is refused). */
        protected abstract boolean connectionStarted();

        /** Starts the transport's connect to {@code remote}; its end calls {@link #failConnect} or completes {@link #connectPromise}. */
        protected abstract void startConnect(InetSocketAddress remote);

        /** The close in progress that a further close joins, or null. */
        protected abstract GracefulClose lingering();

        /** Whether a close now would linger: the connection is established and not over. */
        protected abstract boolean canLinger();

        /** How long a graceful close may wait for the peer's confirmation (Ferry's LINGER; zero aborts). */
        protected abstract java.time.Duration linger();

        /** Starts a lingering close that completes {@code promise}. */
        protected abstract void startLingering(ChannelPromise promise);

        /** Ends the connection at once (LINGER zero), completing {@code promise}. */
        protected abstract void abort(ChannelPromise promise);

        @Override
        public final void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            if (promise.isCancelled() || !ensureOpen(promise)) {
                return;
            }
            if (connectPromise != null) {
                promise.setFailure(new ConnectionPendingException());
                return;
            }
            if (connectionStarted()) {
                promise.setFailure(new AlreadyConnectedException());
                return;
            }
            if (!(remoteAddress instanceof InetSocketAddress remote)) {
                promise.setFailure(new IllegalArgumentException(protocol() + " needs an InetSocketAddress, got " + remoteAddress));
                return;
            }
            if (localAddress != null) {
                try {
                    doBind(localAddress);
                } catch (Exception e) {
                    promise.setFailure(e);
                    return;
                }
            }
            connectPromise = promise;
            int timeoutMillis = config().getConnectTimeoutMillis();
            if (timeoutMillis > 0) {
                connectTimeout = eventLoop().schedule(() -> {
                    if (connectPromise == promise && !promise.isDone()) {
                        failConnect(new ConnectTimeoutException("connection timed out after " + timeoutMillis + " ms: " + remote));
                    }
                }, timeoutMillis, TimeUnit.MILLISECONDS);
            }
            // As Netty's NIO channels: a cancelled connect closes the channel; a finished one stops its timer.
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
            startConnect(remote);
        }

        /** Writes what waits in the outbound buffer (the transport can take more). */
        public final void resumeWrites() {
            flush0();
        }

        /**
         * A graceful close of an established connection lingers until the peer confirmed everything; any
         * other close, and a close while one lingers, is Netty's own.
         */
        @Override
        public final void close(ChannelPromise promise) {
            GracefulClose waiting = lingering();
            if (waiting != null && waiting.join(promise)) {
                return;
            }
            if (waiting == null && open && active && canLinger()) {
                if (linger().isZero()) {
                    abort(promise);
                } else if (promise.setUncancellable()) {
                    startLingering(promise);
                }
                return;
            }
            super.close(promise);
        }

        /** Netty's own close, at once (a lingering close's end). */
        public final void closeNow(ChannelPromise promise) {
            super.close(promise);
        }
    }

    /**
     * {@link DuplexChannel#shutdown(ChannelPromise)} as every Ferry connection means it, also for those on
     * other Netty bases (UDT's NIO channel): output, then input; {@code promise} fails with the first failure.
     */
    public static ChannelFuture shutdownBoth(DuplexChannel channel, ChannelPromise promise) {
        channel.shutdownOutput().addListener(out -> channel.shutdownInput().addListener(in -> {
            Throwable cause = out.cause() != null ? out.cause() : in.cause();
            if (cause == null) {
                promise.trySuccess();
            } else {
                promise.tryFailure(cause);
            }
        }));
        return promise;
    }
}
