package io.ferry.transport.spi;

import io.netty.channel.AbstractServerChannel;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ServerSocketChannel;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.function.Consumer;

/**
 * The base of a Ferry listener whose connections come from an inner listener bound on other event loops
 * (a hosted listener carries its transport's, a striped one its members'). A handler takes the
 * bootstrap's bind before it reaches the channel and starts the inner bind, which completes the bind
 * later on this channel's loop; the connections made wait in an {@link AcceptBacklog} until the
 * bootstrap's acceptor takes them.
 *
 * @param <C> the accepted connections
 */
public abstract class AbstractHostingServerChannel<C extends Channel> extends AbstractServerChannel
        implements ServerSocketChannel {

    private final AcceptBacklog<C> backlog;
    private volatile boolean open = true;
    /** The inner listener once bound, else null. */
    private volatile Channel inner;
    private boolean bindStarted;
    private final CloseOnLoopShutdown loopShutdown = new CloseOnLoopShutdown(this, () -> unsafe().close(unsafe().voidPromise()));

    /** @param unclaimed ends a connection this listener closed before the acceptor took it */
    protected AbstractHostingServerChannel(Consumer<C> unclaimed) {
        this.backlog = new AcceptBacklog<>(this, unclaimed);
        pipeline().addLast(new Binding());
    }

    /** What this listener is called in errors, for example "a striped listener". */
    protected abstract String kind();

    /** Binds the inner listener to {@code local}; {@link #innerBound} must follow on this channel's loop. */
    protected abstract void bindInner(InetSocketAddress local, ChannelPromise promise);

    /**
     * Closes the inner listener as this listener closes: {@code boundOrNull} is it once bound; a bind under
     * way ({@code bindStarted}, not yet bound) is closed by {@link #innerBound}.
     */
    protected abstract void closeInner(Channel boundOrNull, boolean bindStarted);

    /** The inner listener's bind ended (this channel's loop): this listener is active, or the bind failed. */
    protected final void innerBound(ChannelFuture bound, ChannelPromise promise) {
        if (!bound.isSuccess()) {
            promise.tryFailure(bound.cause());
            unsafe().close(voidPromise());
            return;
        }
        if (!open) {
            bound.channel().close();
            promise.tryFailure(new ClosedChannelException());
            return;
        }
        inner = bound.channel();
        if (promise.trySuccess()) {
            pipeline().fireChannelActive();
        }
    }

    /** A connection is ready for the acceptor (any thread). */
    protected final void accepted(C child) {
        eventLoop().execute(() -> backlog.add(child));
    }

    /** The bound inner listener, or null before the bind completed. */
    protected final Channel inner() {
        return inner;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && inner != null;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return null;
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return true;
    }

    @Override
    protected SocketAddress localAddress0() {
        Channel i = inner;
        return i == null ? null : i.localAddress();
    }

    /**
     * Never reached while the channel's first handler takes every bind (the inner bind completes later, which
     * {@code doBind} cannot express); reached only if that handler was removed from the pipeline.
     */
    @Override
    protected void doBind(SocketAddress localAddress) {
        throw new IllegalStateException(kind() + " binds through the first handler of its pipeline, which was removed");
    }

    @Override
    @SuppressWarnings("deprecation")
    protected void doRegister() {
        loopShutdown.registered();
    }

    @Override
    protected void doClose() {
        open = false;
        loopShutdown.closed();
        closeInner(inner, bindStarted);
        backlog.drain();
    }

    @Override
    protected void doBeginRead() {
        backlog.requested();
    }

    /** Takes the bootstrap's bind before it reaches the channel. */
    private static final class Binding extends ChannelOutboundHandlerAdapter {
        @Override
        public void bind(ChannelHandlerContext ctx, SocketAddress localAddress, ChannelPromise promise) {
            AbstractHostingServerChannel<?> server = (AbstractHostingServerChannel<?>) ctx.channel();
            if (!(localAddress instanceof InetSocketAddress local)) {
                promise.setFailure(new IllegalArgumentException(server.kind() + " binds an InetSocketAddress, got " + localAddress));
            } else if (server.bindStarted) {
                promise.setFailure(new IllegalStateException("this listener is bound already"));
            } else if (!server.open) {
                promise.setFailure(new ClosedChannelException());
            } else if (promise.setUncancellable()) {
                server.bindStarted = true;
                server.bindInner(local, promise);
            }
        }
    }
}
