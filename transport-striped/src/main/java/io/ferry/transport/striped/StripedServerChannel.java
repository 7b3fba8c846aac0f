package io.ferry.transport.striped;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.spi.AcceptBacklog;
import io.ferry.transport.spi.ListenerConfig;
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

/**
 * A striped listener made by Netty's {@code ServerBootstrap} (see {@link StripedTransport#bootstrapping}):
 * the underlying transport's listener takes the member connections, and each striped connection they
 * make up waits here, as an accepted socket waits in a kernel's backlog, until the bootstrap's acceptor
 * takes it: all of them with auto-read on, one per {@code read()} with it off.
 */
public final class StripedServerChannel extends AbstractServerChannel implements ServerSocketChannel {

    private final StripedTransport transport;
    private final ChannelOptions options;
    private final ListenerConfig config = new ListenerConfig(this);
    /** Striped connections the acceptor has yet to take. */
    private final AcceptBacklog<StripedChannel> backlog = new AcceptBacklog<>(this, StripedChannel::resetUnclaimed);
    private volatile Channel members;
    private volatile boolean open = true;

    StripedServerChannel(StripedTransport transport, ChannelOptions options) {
        this.transport = transport;
        this.options = options;
        attr(FerryChannels.TRANSPORT).set(transport);
        pipeline().addLast(new Binding());
    }

    /** The underlying transport's listener that takes the member connections; null before the bind completes. */
    public Channel memberListener() {
        return members;
    }

    /** A striped connection whose members all arrived (any thread): it waits for the acceptor. */
    void accepted(StripedChannel child) {
        eventLoop().execute(() -> {
            backlog.add(child);
        });
    }

    /** The member listener's bind ended (this channel's loop). */
    void membersBound(ChannelFuture bound, ChannelPromise promise) {
        if (!bound.isSuccess()) {
            promise.tryFailure(bound.cause());
            return;
        }
        if (!open) {
            bound.channel().close();
            promise.tryFailure(new java.nio.channels.ClosedChannelException());
            return;
        }
        members = bound.channel();
        if (promise.trySuccess()) {
            pipeline().fireChannelActive();
        }
    }

    @Override
    public ListenerConfig config() {
        return config;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && members != null;
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
        Channel m = members;
        return m == null ? null : m.localAddress();
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        throw new UnsupportedOperationException("a striped listener is bound through its Binding handler");
    }

    @Override
    protected void doClose() {
        open = false;
        Channel m = members;
        if (m != null) {
            m.close();
        }
        backlog.drain();
    }

    @Override
    protected void doBeginRead() {
        backlog.requested();
    }

    /**
     * Takes the bootstrap's bind before it reaches the channel: the member listener binds on the
     * underlying transport's loops, which completes the bind later (on this channel's loop).
     */
    private static final class Binding extends ChannelOutboundHandlerAdapter {
        @Override
        public void bind(ChannelHandlerContext ctx, SocketAddress localAddress, ChannelPromise promise) {
            StripedServerChannel server = (StripedServerChannel) ctx.channel();
            if (!(localAddress instanceof InetSocketAddress)) {
                promise.setFailure(new IllegalArgumentException("a striped listener binds an InetSocketAddress, got " + localAddress));
            } else if (server.members != null) {
                promise.setFailure(new IllegalStateException("this striped listener is bound already"));
            } else if (!server.open) {
                promise.setFailure(new java.nio.channels.ClosedChannelException());
            } else if (promise.setUncancellable()) {
                server.transport.bindListener(server, (InetSocketAddress) localAddress, server.options, promise);
            }
        }
    }
}
