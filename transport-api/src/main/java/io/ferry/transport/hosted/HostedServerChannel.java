package io.ferry.transport.hosted;

import io.ferry.transport.Bootstrapping;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.spi.AcceptBacklog;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AbstractServerChannel;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.ServerSocketChannelConfig;
import io.netty.channel.socket.SocketChannel;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;

/**
 * A Ferry listener on an event loop that is not its transport's (see {@link HostedChannels}). It carries
 * a listener of the transport, bound on the transport's loops; each connection that listener accepts
 * becomes a {@link HostedSocketChannel} and waits here, as an accepted socket waits in a kernel's backlog,
 * until the bootstrap's acceptor takes it (and registers it on a loop of its choosing): all of them with
 * auto-read on, one per {@code read()} with it off. Options set on this listener are the carried one's.
 */
public final class HostedServerChannel extends AbstractServerChannel implements ServerSocketChannel {

    private final Bootstrapping carrier;
    private final ServerSocketChannel carried;
    private final HostedListenerConfig config;
    /** Accepted connections the acceptor has yet to take. */
    private final AcceptBacklog<HostedSocketChannel> backlog = new AcceptBacklog<>(this, c -> c.carried().close());
    private volatile boolean open = true;
    private volatile boolean bound;
    private boolean bindStarted;

    HostedServerChannel(Bootstrapping carrier) {
        this.carrier = carrier;
        this.carried = carrier.serverChannelFactory().newChannel();
        this.config = new HostedListenerConfig(this, carried.config());
        attr(FerryChannels.TRANSPORT).set(carried.attr(FerryChannels.TRANSPORT).get());
        pipeline().addLast(new Binding());
    }

    /** The Ferry listener this channel carries (on the transport's loops). */
    public ServerSocketChannel carried() {
        return carried;
    }

    private void bind(InetSocketAddress local, ChannelPromise promise) {
        bindStarted = true;
        ChannelFuture f = new ServerBootstrap().group(carrier.group(), carrier.group()).channelFactory(() -> carried)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel child) {
                        HostedSocketChannel host = new HostedSocketChannel(HostedServerChannel.this, (SocketChannel) child);
                        eventLoop().execute(() -> {
                            backlog.add(host);
                        });
                    }
                })
                .bind(local);
        f.addListener(done -> eventLoop().execute(() -> carriedBound(f, promise)));
    }

    private void carriedBound(ChannelFuture f, ChannelPromise promise) {
        if (!f.isSuccess()) {
            promise.tryFailure(f.cause());
            unsafe().close(voidPromise());
            return;
        }
        if (!open) {
            carried.close();
            promise.tryFailure(new ClosedChannelException());
            return;
        }
        bound = true;
        if (promise.trySuccess()) {
            pipeline().fireChannelActive();
        }
    }

    @Override
    public ServerSocketChannelConfig config() {
        return config;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && bound;
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
        return bound ? carried.localAddress() : null;
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        throw new UnsupportedOperationException("a hosted listener is bound through its Binding handler");
    }

    @Override
    protected void doClose() {
        open = false;
        if (carried.isRegistered()) {
            carried.close();
        } else if (!bindStarted) {
            carried.unsafe().closeForcibly(); // never handed to a loop
        } // else the bind is under way: carriedBound() closes it
        backlog.drain();
    }

    @Override
    protected void doBeginRead() {
        backlog.requested();
    }

    /** Takes the bootstrap's bind before it reaches the channel: the carried listener binds on its own loops. */
    private static final class Binding extends ChannelOutboundHandlerAdapter {
        @Override
        public void bind(ChannelHandlerContext ctx, SocketAddress localAddress, ChannelPromise promise) {
            HostedServerChannel server = (HostedServerChannel) ctx.channel();
            if (!(localAddress instanceof InetSocketAddress)) {
                promise.setFailure(new IllegalArgumentException("a Ferry listener binds an InetSocketAddress, got " + localAddress));
            } else if (server.bindStarted) {
                promise.setFailure(new IllegalStateException("this listener is bound already"));
            } else if (!server.open) {
                promise.setFailure(new ClosedChannelException());
            } else if (promise.setUncancellable()) {
                server.bind((InetSocketAddress) localAddress, promise);
            }
        }
    }
}
