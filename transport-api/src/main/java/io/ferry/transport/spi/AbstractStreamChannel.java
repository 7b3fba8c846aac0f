package io.ferry.transport.spi;

import io.netty.channel.AbstractChannel;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NotYetConnectedException;
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
