package io.ferry.transport.striped;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannels;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.util.List;

/**
 * The client side of a {@link StripedChannel} made by a bootstrap's factory: what {@code bind} and
 * {@code connect} ask of it (checked as a socket checks them), opening its members through the
 * transport, and the channel's activation or failure when they all connected or one did not. Runs on
 * the channel's event loop.
 */
final class StripedConnect {

    private final StripedChannel channel;
    private final StripedTransport transport;
    private final int count;
    /** How the members are opened (see {@link StripedTransport#bootstrapping}). */
    private final ChannelOptions options;
    private boolean connecting;
    /** The local address bound before the connect; the members bind it. */
    private volatile InetSocketAddress boundLocal;

    StripedConnect(StripedChannel channel, StripedTransport transport, int count, ChannelOptions options) {
        this.channel = channel;
        this.transport = transport;
        this.count = count;
        this.options = options;
    }

    /** The channel's local address until its members connected. */
    InetSocketAddress boundLocal() {
        return boundLocal;
    }

    /** {@code bind} before the connect: remembered for the members. */
    void bind(SocketAddress localAddress, boolean connected) throws IOException {
        if (connected || connecting) {
            throw new AlreadyBoundException();
        }
        boundLocal = checkLocal(localAddress);
    }

    /** {@code connect}: opens the members, or fails {@code promise} naming what is wrong with the request. */
    void connect(SocketAddress remote, SocketAddress local, ChannelPromise promise, boolean connected) {
        if (connected) {
            promise.setFailure(new AlreadyConnectedException());
        } else if (connecting) {
            promise.setFailure(new ConnectionPendingException());
        } else if (!(remote instanceof InetSocketAddress)) {
            promise.setFailure(new IllegalArgumentException("a striped channel connects to an InetSocketAddress, got " + remote));
        } else {
            InetSocketAddress bind;
            try {
                bind = local == null ? boundLocal : checkLocal(local);
            } catch (IOException | RuntimeException e) {
                promise.setFailure(e);
                return;
            }
            connecting = true;
            promise.addListener(f -> {
                if (f.isCancelled()) {
                    channel.close(); // as a socket's cancelled connect does; the members still connecting go with it
                }
            });
            transport.connectMembers(channel, (InetSocketAddress) remote, bind, options, promise);
        }
    }

    /**
     * The members all connected and heard the greeting: the channel becomes active, as a socket does when
     * its connect completes. A channel closed or a connect cancelled meanwhile resets them.
     */
    void connected(List<Channel> memberChannels, MemberHandler[] memberHandlers, ChannelPromise promise) {
        connecting = false;
        if (!channel.isOpen() || promise.isCancelled()) {
            memberChannels.forEach(FerryChannels::abort);
            promise.tryFailure(new ClosedChannelException());
            return;
        }
        channel.activate(memberChannels, memberHandlers);
        if (promise.trySuccess()) {
            channel.pipeline().fireChannelActive();
        } else {
            channel.close(); // the connect was cancelled meanwhile
        }
    }

    /** A member did not connect: the channel closes, as a socket's does. */
    void failed(ChannelPromise promise, Throwable cause) {
        connecting = false;
        promise.tryFailure(cause);
        channel.close();
    }

    /**
     * A local address the members can all bind: any port of an address for several members (each takes a
     * port of its own), any address and port for one.
     */
    private InetSocketAddress checkLocal(SocketAddress localAddress) throws IOException {
        if (!(localAddress instanceof InetSocketAddress)) {
            throw new IllegalArgumentException("a striped channel binds an InetSocketAddress, got " + localAddress);
        }
        InetSocketAddress local = (InetSocketAddress) localAddress;
        if (count > 1 && local.getPort() != 0) {
            throw new BindException("a striped channel of " + count + " member connections cannot bind port " + local.getPort()
                    + ": each member takes a port of its own; bind port 0");
        }
        return local;
    }
}
