package io.ferry.transport.udt;

import io.ferry.transport.FerryChannels;
import io.ferry.transport.spi.ChildHandlers;
import io.ferry.transport.spi.ListenerConfig;
import io.ferry.transport.udp.engine.SocketGroup;
import io.ferry.transport.udt.proto.core.UdtListener;
import io.ferry.transport.udt.proto.wire.Handshake;
import io.netty.channel.AbstractServerChannel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;

/**
 * A UDT listener on Ferry's own engine: accepts connections arriving on its UDP sockets as child
 * {@link UdtSocketChannel}s, which share the socket their request arrived on and run on its event loop.
 * With epoll the listener has one socket per event loop, all bound to its address with
 * {@code SO_REUSEPORT}, so connections spread over every core (the kernel keeps each peer on one socket).
 * A request is accepted only once it returned the listener's SYN cookie. Closing the listener stops
 * accepting; connections already accepted live on, and each socket closes after its last connection.
 */
public final class UdtServerChannel extends AbstractServerChannel implements ServerSocketChannel {

    private static final InternalLogger LOG = InternalLoggerFactory.getInstance(UdtServerChannel.class);

    private final ListenerConfig config = new ListenerConfig(this) {
        @Override
        protected void autoReadCleared() {
            acceptPending = false;
        }
    };
    private static final java.security.SecureRandom SECRETS = new java.security.SecureRandom();

    private final SocketGroup<Object> group = new SocketGroup<>();
    private final java.util.ArrayDeque<UdtSocketChannel> backlog = new java.util.ArrayDeque<>();
    private boolean acceptPending;
    private final UdtTransport transport;
    private final UdtSettings childSettings;
    private final ChannelHandler childHandler;
    private volatile List<UdtEndpoint> endpoints = List.of();
    private volatile boolean open = true;

    UdtServerChannel(UdtTransport transport, UdtSettings childSettings, ChannelHandler childHandler) {
        this.transport = transport;
        this.childSettings = childSettings;
        this.childHandler = childHandler;
    }

    UdtSettings childSettings() {
        return childSettings;
    }

    /** Called once every UDP socket of the listener is bound: they share one listener (one cookie secret) and one group. */
    void bound(List<UdtEndpoint> all) {
        byte[] secret = new byte[32];
        SECRETS.nextBytes(secret);
        UdtEndpoint first = all.get(0);
        UdtListener listener = new UdtListener(childSettings.protocol(first.isIpv6(), config().getAllocator()), secret, first.now());
        for (UdtEndpoint e : all) {
            e.setAcceptor(this, listener, group);
        }
        this.endpoints = List.copyOf(all);
        pipeline().fireChannelActive();
    }

    /**
     * A request with a valid cookie arrived at {@code from}: the accepted connection, connected (its
     * response queued), on the endpoint's loop; null if the listener closed or the child cannot be made.
     */
    UdtSocketChannel accept(UdtEndpoint from, InetSocketAddress sender, Handshake request, int socketId, long now) {
        if (!open) {
            return null;
        }
        UdtSocketChannel child = new UdtSocketChannel(this, transport, childSettings, from, sender);
        try {
            child.accepted(request, socketId, now);
        } catch (RuntimeException e) {
            pipeline().fireExceptionCaught(e);
            return null;
        }
        child.attr(FerryChannels.TRANSPORT).set(transport);
        if (childHandler == null) {
            eventLoop().execute(() -> {
                backlog.add(child);
                acceptFromBacklog();
            });
        } else {
            try {
                ChildHandlers.addLast(child, childHandler);
            } catch (RuntimeException e) {
                LOG.warn("Failed to initialize an accepted UDT connection from {}; resetting it", sender, e);
                child.connection().abort(now);
                return child;
            }
            transport.track(child);
            from.loop().register(child).addListener(f -> { if (!f.isSuccess()) { LOG.warn("registering an accepted UDT connection failed", f.cause()); } });
        }
        return child;
    }

    /** Hands a user's bootstrap the accepted connections, as a listener socket's read loop does. */
    private void acceptFromBacklog() {
        if (!open) {
            for (UdtSocketChannel child; (child = backlog.poll()) != null; ) {
                UdtSocketChannel c = child;
                c.endpoint().loop().execute(() -> {
                    c.connection().abort(c.endpoint().now());
                    c.endpoint().afterCall(c);
                });
            }
            return;
        }
        boolean any = false;
        while (!backlog.isEmpty() && (config.isAutoRead() || acceptPending)) {
            acceptPending = false;
            any = true;
            UdtSocketChannel child = backlog.poll();
            transport.track(child);
            pipeline().fireChannelRead(child);
            if (!config.isAutoRead()) {
                break;
            }
        }
        if (any) {
            pipeline().fireChannelReadComplete();
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
        return open && !endpoints.isEmpty();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return null;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return true;
    }

    @Override
    protected SocketAddress localAddress0() {
        List<UdtEndpoint> all = endpoints;
        return all.isEmpty() ? null : all.get(0).localAddress();
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        throw new UnsupportedOperationException("a UDT listener is bound by its transport");
    }

    /** For a listener a user's {@code ServerBootstrap} binds: opens the UDP sockets, which completes the bind later. */
    static final class Binding extends io.netty.channel.ChannelOutboundHandlerAdapter {
        @Override
        public void bind(io.netty.channel.ChannelHandlerContext ctx, SocketAddress localAddress, ChannelPromise promise) {
            UdtServerChannel server = (UdtServerChannel) ctx.channel();
            if (!(localAddress instanceof InetSocketAddress inet)) {
                promise.setFailure(new IllegalArgumentException("udt:// listens on an InetSocketAddress, got " + localAddress));
            } else if (!server.endpoints.isEmpty()) {
                promise.setFailure(new IllegalStateException("this UDT listener is bound already"));
            } else {
                server.transport.openListener(server, inet, promise);
            }
        }
    }

    @Override
    protected void doClose() {
        open = false;
        acceptFromBacklog();
        for (UdtEndpoint e : endpoints) {
            e.acceptorClosed();
        }
    }

    @Override
    protected void doBeginRead() {
        acceptPending = true;
        acceptFromBacklog();
    }

    /** How many UDP sockets (and event loops) this listener receives on. */
    public int sockets() {
        return endpoints.size();
    }

    /** Datagrams this listener's sockets could not route to a connection (unknown socket id, or not a request). */
    public long unroutableDatagrams() {
        return endpoints.stream().mapToLong(UdtEndpoint::unroutable).sum();
    }

    /** Datagrams one of this listener's sockets received for a connection on another (the kernel's spread changed). */
    public long handedOverDatagrams() {
        return group.handedOver();
    }

    /** Connections reset because handling one of their packets or timers threw. */
    public long connectionFailures() {
        return endpoints.stream().mapToLong(UdtEndpoint::connectionFailures).sum();
    }
}
