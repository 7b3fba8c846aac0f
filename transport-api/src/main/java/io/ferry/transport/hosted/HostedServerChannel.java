package io.ferry.transport.hosted;

import io.ferry.transport.Bootstrapping;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.spi.AbstractHostingServerChannel;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.ServerSocketChannelConfig;
import io.netty.channel.socket.SocketChannel;

import java.net.InetSocketAddress;

/**
 * A Ferry listener on an event loop that is not its transport's (see {@link HostedChannels}). It carries
 * a listener of the transport, bound on the transport's loops; each connection that listener accepts
 * becomes a {@link HostedSocketChannel} and waits here, as an accepted socket waits in a kernel's backlog,
 * until the bootstrap's acceptor takes it (and registers it on a loop of its choosing): all of them with
 * auto-read on, one per {@code read()} with it off. Options set on this listener are the carried one's.
 */
public final class HostedServerChannel extends AbstractHostingServerChannel<HostedSocketChannel> {

    private final Bootstrapping carrier;
    private final ServerSocketChannel carried;
    private final HostedListenerConfig config;

    HostedServerChannel(Bootstrapping carrier) {
        super(c -> c.carried().close());
        this.carrier = carrier;
        this.carried = carrier.serverChannelFactory().newChannel();
        this.config = new HostedListenerConfig(this, carried.config());
        attr(FerryChannels.TRANSPORT).set(carried.attr(FerryChannels.TRANSPORT).get());
    }

    /** The Ferry listener this channel carries (on the transport's loops). */
    public ServerSocketChannel carried() {
        return carried;
    }

    @Override
    protected String kind() {
        return "a Ferry listener";
    }

    @Override
    protected void bindInner(InetSocketAddress local, ChannelPromise promise) {
        ChannelFuture f = new ServerBootstrap().group(carrier.group(), carrier.group()).channelFactory(() -> carried)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel child) {
                        accepted(new HostedSocketChannel(HostedServerChannel.this, (SocketChannel) child));
                    }
                })
                .bind(local);
        f.addListener(done -> eventLoop().execute(() -> innerBound(f, promise)));
    }

    @Override
    protected void closeInner(Channel boundOrNull, boolean bindStarted) {
        if (carried.isRegistered()) {
            carried.close();
        } else if (!bindStarted) {
            carried.unsafe().closeForcibly(); // never handed to a loop
        } // else the bind is under way: innerBound() closes it
    }

    @Override
    public ServerSocketChannelConfig config() {
        return config;
    }
}
