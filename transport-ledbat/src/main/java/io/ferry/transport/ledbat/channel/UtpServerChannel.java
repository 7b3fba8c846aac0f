package io.ferry.transport.ledbat.channel;

import io.ferry.transport.ledbat.core.SynAnswer;
import io.ferry.transport.ledbat.core.UtpConfig;
import io.ferry.transport.ledbat.core.UtpConnection;
import io.ferry.transport.ledbat.endpoint.Admission;
import io.ferry.transport.ledbat.endpoint.EndpointCore;

import io.ferry.transport.spi.ChildHandlers;
import io.ferry.transport.spi.ListenerConfig;
import io.netty.channel.socket.ServerSocketChannel;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.ferry.transport.FerryChannels;
import io.netty.buffer.ByteBuf;
import io.netty.channel.AbstractServerChannel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A uTP listener: accepts connections arriving on its UDP sockets as child {@link UtpSocketChannel}s,
 * which share the socket their SYN arrived on and run on that socket's event loop. With epoll the
 * listener has one socket per event loop of its transport, all bound to its address with
 * {@code SO_REUSEPORT}; the kernel picks the socket by a hash of the peer's and the listener's address and
 * port, so every packet of a connection reaches the same socket and loop, and many connections spread
 * over every core. Closing the listener stops accepting; connections already accepted live on, and each
 * socket closes after the last of its connections.
 */
public final class UtpServerChannel extends AbstractServerChannel implements ServerSocketChannel {

    private final ListenerConfig config = new ListenerConfig(this) {
        @Override
        protected void autoReadCleared() {
            acceptPending = false; // as NIO's listener: a read() asked for before no longer stands
        }

        @Override
        public <T> boolean setOption(ChannelOption<T> option, T value) {
            if (UtpSettings.LISTENER_OPTIONS.contains(option)) {
                validate(option, value);
                setAdmissionOption(option, (Integer) value);
                return true;
            }
            return super.setOption(option, value);
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T getOption(ChannelOption<T> option) {
            if (UtpSettings.LISTENER_OPTIONS.contains(option)) {
                return (T) Integer.valueOf(limits.get(option));
            }
            return super.getOption(option);
        }
    };
    /** The admission limits ({@link UtpSettings#LISTENER_OPTIONS}), settable through the config until the bind. */
    private final UtpSettings.ListenerLimits limits;
    /** Connections a user's {@code ServerBootstrap} has yet to take, as a kernel's backlog holds them; listener's loop only. */
    private final java.util.ArrayDeque<Accepted> backlog = new java.util.ArrayDeque<>();
    /** A {@code read()} asked for the next accepted connection (auto-read off); listener's loop only. */
    private boolean acceptPending;
    private final UtpTransport transport;
    private final UtpSettings childSettings;
    private static final InternalLogger LOG = InternalLoggerFactory.getInstance(UtpServerChannel.class);

    private final ChannelHandler childHandler;
    /** Made anew when a limit is set before the bind; fixed from the bind on. */
    private volatile Admission admission;
    private volatile List<UtpEndpoint> endpoints = List.of();
    private final io.ferry.transport.udp.engine.SocketGroup<Object> group = new io.ferry.transport.udp.engine.SocketGroup<>();
    /** Sockets bound to the local addresses peers dialed, for a listener on the wildcard address. */
    private final java.util.concurrent.ConcurrentMap<java.net.InetAddress, DialedAddress> dialed =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final RouteSource routes = new RouteSource();
    private volatile boolean open = true;

    UtpServerChannel(UtpTransport transport, UtpSettings childSettings, ChannelHandler childHandler) {
        this.transport = transport;
        this.childSettings = childSettings;
        this.childHandler = childHandler;
        this.limits = childSettings.listenerLimits();
        this.admission = limits.admission();
    }

    /**
     * A limit set through {@code ServerBootstrap.option(...)}, as {@code Transports.listen}'s options set it.
     *
     * @throws IllegalStateException once the listener is bound (its sockets admit by the limits they started with)
     * @throws io.ferry.transport.UnsupportedOptionException for a value that is not positive
     */
    private void setAdmissionOption(ChannelOption<?> option, int value) {
        if (!endpoints.isEmpty()) {
            throw new IllegalStateException("uTP option " + option.name() + " is set before the listener is bound");
        }
        limits.set(option, value);
        admission = limits.admission();
    }

    /** This listener's sockets and which of them routes each accepted connection. */
    io.ferry.transport.udp.engine.SocketGroup<Object> socketGroup() {
        return group;
    }

    /** Datagrams one of this listener's sockets received for a connection on another (the kernel's spread changed). */
    public long handedOverDatagrams() {
        return group.handedOver();
    }

    /** RESETs per second each socket of this listener may send. */
    int resetRate() {
        return limits.get(UtpChannelOption.RESET_RATE);
    }

    /** Called once every UDP socket of the listener is bound. */
    /** The settings of the connections this listener accepts (and of its own sockets). */
    UtpSettings childSettings() {
        return childSettings;
    }

    void bound(List<UtpEndpoint> all) {
        for (UtpEndpoint e : all) {
            e.setAcceptor(this);
        }
        this.endpoints = List.copyOf(all);
        pipeline().fireChannelActive();
    }

    /**
     * A SYN reached a wildcard socket addressed to {@code recipient}: unless the kernel's replies to the
     * sender would leave from that address anyway, hands it to the socket bound to that address,
     * opening one first, so that the connection's packets leave from the address its peer dialed (a
     * peer's connected socket takes datagrams from no other). Returns false when the wildcard socket
     * should accept the connection itself. Any event loop.
     */
    boolean acceptOnDialedAddress(UtpEndpoint from, ByteBuf syn, InetSocketAddress sender, InetSocketAddress recipient) {
        if (!open || routes.leavesFrom(recipient.getAddress(), sender.getAddress())) {
            return false; // the wildcard sockets' replies leave from the dialed address anyway, spread over every loop
        }
        DialedAddress target = dialed.computeIfAbsent(recipient.getAddress(), a -> new DialedAddress());
        return target.take(this, from, syn, sender, new InetSocketAddress(recipient.getAddress(), port()));
    }

    private int port() {
        InetSocketAddress local = (InetSocketAddress) localAddress0();
        return local == null ? 0 : local.getPort();
    }

    private void addEndpoint(UtpEndpoint e) {
        synchronized (dialed) {
            List<UtpEndpoint> grown = new java.util.ArrayList<>(endpoints);
            grown.add(e);
            endpoints = List.copyOf(grown);
        }
        e.setAcceptor(this);
        if (!open) {
            e.acceptorClosed();
        }
    }

    /** The socket of one dialed address: opened on the first SYN to it, which waits with any others until it is bound. */
    private static final class DialedAddress {
        /** SYNs held while the socket binds; more are dropped (the peer sends its SYN again). */
        private static final int MAX_WAITING = 64;
        private final List<Object[]> waiting = new java.util.ArrayList<>();
        private UtpEndpoint endpoint;
        private boolean opening;
        private boolean failed;

        synchronized boolean take(UtpServerChannel server, UtpEndpoint from, ByteBuf syn, InetSocketAddress sender,
                                  InetSocketAddress address) {
            if (failed) {
                return false;
            }
            if (endpoint != null) {
                UtpEndpoint e = endpoint;
                ByteBuf copy = syn.retainedDuplicate();
                e.loop().execute(() -> e.handOver(copy, sender));
                return true;
            }
            if (waiting.size() < MAX_WAITING) {
                waiting.add(new Object[]{syn.retainedDuplicate(), sender});
            }
            if (!opening) {
                opening = true;
                ChannelFuture bound = UtpEndpoint.openDialedAddress(server.transport, from.loop(), address,
                        server.childSettings.protocol.packetSize());
                server.transport.trackSocket(bound.channel());
                bound.addListener(f -> opened(server, f.isSuccess() ? UtpEndpoint.of(bound.channel()) : null, from));
            }
            return true;
        }

        private void opened(UtpServerChannel server, UtpEndpoint e, UtpEndpoint fallback) {
            List<Object[]> held;
            synchronized (this) {
                held = new java.util.ArrayList<>(waiting);
                waiting.clear();
                if (e == null) {
                    failed = true;
                } else {
                    endpoint = e;
                }
            }
            if (e != null) {
                server.addEndpoint(e);
            }
            UtpEndpoint to = e != null ? e : fallback;
            for (Object[] w : held) {
                ByteBuf syn = (ByteBuf) w[0];
                InetSocketAddress sender = (InetSocketAddress) w[1];
                to.loop().execute(() -> to.handOver(syn, sender));
            }
        }
    }

    /** What this listener admits; shared by its sockets. */
    Admission admission() {
        return admission;
    }

    /**
     * Sets up the connection for an admitted SYN, half-open: its answer leaves once the endpoint took it,
     * but the application sees the connection only once the initiator has proven its address
     * ({@link #promote}). Null if the connection cannot be set up (the error goes down the listener's pipeline).
     */
    UtpSocketChannel accept(UtpEndpoint from, EndpointCore.Handshake handshake, InetSocketAddress sender, long now) {
        UtpSocketChannel child = new UtpSocketChannel(this, transport, childSettings, from, sender);
        try {
            childSettings.applyTo(child);
        } catch (RuntimeException e) {
            pipeline().fireExceptionCaught(e);
            return null;
        }
        UtpConfig config = PathMtu.fit(childSettings.protocol, sender);
        child.attach(handshake.revived()
                ? UtpConnection.revive(config, handshake.syn(), handshake.seqNr(), now)
                : UtpConnection.accept(config, handshake.syn(), ThreadLocalRandom.current().nextInt(1 << 16), now));
        child.awaitConfirmation();
        return child;
    }

    /** The answer to a SYN from the SYN cache: the one {@link #accept} would send, without a connection. */
    io.netty.buffer.ByteBuf synAnswer(io.netty.buffer.ByteBuf syn, int seqNr, long now) {
        return SynAnswer.build(childSettings.protocol, syn, seqNr, now);
    }

    /**
     * The initiator of {@code child} proved its address: the application gets the connection. On its loop.
     * A listener made by a user's {@code ServerBootstrap} (no child handler of its own) passes the child
     * down its pipeline to the bootstrap's acceptor, which registers it through the transport's group on
     * this same loop ({@link io.ferry.transport.spi.HomeLoopGroup}).
     */
    void promote(UtpSocketChannel child, UtpEndpoint from) {
        from.promoted(child);
        child.attr(FerryChannels.TRANSPORT).set(transport);
        if (childHandler == null) {
            eventLoop().execute(() -> {
                backlog.add(new Accepted(child, from));
                acceptFromBacklog();
            });
            return;
        }
        try {
            ChildHandlers.addLast(child, childHandler);
        } catch (RuntimeException e) {
            // as Netty's ServerBootstrap does: log, and the connection goes (the endpoint resets it)
            LOG.warn("Failed to initialize an accepted uTP connection from {}; resetting it", child.remote(), e);
            throw e;
        }
        transport.track(child);
        from.loop().register(child);
    }

    /** An accepted connection and the socket it arrived on, waiting in the {@link #backlog}. */
    private record Accepted(UtpSocketChannel child, UtpEndpoint from) {
    }

    /**
     * Hands the bootstrap's acceptor the connections in the backlog, as a listener socket's read loop does:
     * all of them with auto-read on, one per {@code read()} with it off (the handshake is complete already,
     * as the kernel completes TCP's before {@code accept}). A closed listener resets what it never handed on.
     */
    private void acceptFromBacklog() {
        if (!open) {
            for (Accepted a; (a = backlog.poll()) != null; ) {
                UtpSocketChannel child = a.child();
                a.from().loop().execute(child::resetUnclaimed);
            }
            return;
        }
        boolean any = false;
        while (!backlog.isEmpty() && (config.isAutoRead() || acceptPending)) {
            acceptPending = false;
            any = true;
            UtpSocketChannel child = backlog.poll().child();
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

    /** Connections accepted whose initiator has not yet proven its address. */
    public int halfOpenConnections() {
        return admission.halfOpen();
    }

    /** Connections handed to the application and not yet over. */
    public int establishedConnections() {
        return admission.established();
    }

    /** SYNs dropped unanswered because {@link UtpChannelOption#MAX_HALF_OPEN} connections were half-open (and none was evicted). */
    public long synsDropped() {
        return admission.dropped();
    }

    /** SYNs refused (RESET, rate-limited) by {@link UtpChannelOption#MAX_CONNECTIONS} or the per-address limit. */
    public long synsRefused() {
        return admission.refused();
    }

    /** Half-open connections that ended without their initiator proving its address. */
    public long halfOpenExpired() {
        return admission.expired();
    }

    /**
     * Half-open connections ended early to make room for a confirmed handshake from the SYN cache while
     * {@link UtpChannelOption#MAX_HALF_OPEN} were half-open.
     */
    public long halfOpenEvicted() {
        return admission.evicted();
    }

    /** SYNs answered from the SYN cache, without a connection, while {@link UtpChannelOption#MAX_HALF_OPEN} were half-open. */
    public long synsAnsweredFromCache() {
        return endpoints.stream().mapToLong(UtpEndpoint::synCacheAnswers).sum();
    }

    /** Connections made from the SYN cache (answered there, or evicted) because the initiator's next packet confirmed the answer. */
    public long halfOpenRevived() {
        return endpoints.stream().mapToLong(UtpEndpoint::revivedHandshakes).sum();
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
        List<UtpEndpoint> all = endpoints;
        return all.isEmpty() ? null : all.get(0).localAddress();
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        throw new UnsupportedOperationException("a uTP listener is bound by its transport");
    }

    /**
     * For a listener a user's {@code ServerBootstrap} binds: takes the bind before it reaches the channel
     * and opens the listener's UDP sockets on the transport's loops, which completes the bind later.
     */
    static final class Binding extends io.netty.channel.ChannelOutboundHandlerAdapter {
        @Override
        public void bind(io.netty.channel.ChannelHandlerContext ctx, SocketAddress localAddress, ChannelPromise promise) {
            UtpServerChannel server = (UtpServerChannel) ctx.channel();
            if (!(localAddress instanceof InetSocketAddress)) {
                promise.setFailure(new IllegalArgumentException("uTP listens on an InetSocketAddress, got " + localAddress));
            } else if (!server.endpoints.isEmpty()) {
                promise.setFailure(new IllegalStateException("this uTP listener is bound already"));
            } else {
                server.transport.openListener(server, (InetSocketAddress) localAddress, promise);
            }
        }
    }

    @Override
    protected void doClose() {
        open = false;
        acceptFromBacklog();
        for (UtpEndpoint e : endpoints) {
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

    /** Datagrams this listener's sockets dropped as malformed. */
    public long malformedPacketsDropped() {
        return endpoints.stream().mapToLong(UtpEndpoint::malformedDropped).sum();
    }

    /** Valid packets this listener's sockets received for connections they do not have (each answered with a RESET). */
    public long packetsForUnknownConnections() {
        return endpoints.stream().mapToLong(UtpEndpoint::unknownConnectionPackets).sum();
    }

    /** RESETs this listener's sockets did not send because of {@link UtpChannelOption#RESET_RATE}. */
    public long resetsSuppressed() {
        return endpoints.stream().mapToLong(UtpEndpoint::resetsSuppressed).sum();
    }

    /** Connections this listener's sockets reset because handling one of their packets or timers threw. */
    public long connectionFailures() {
        return endpoints.stream().mapToLong(UtpEndpoint::connectionFailures).sum();
    }

    /** Socket errors this listener's sockets reported (other than "port unreachable"). */
    public long socketErrors() {
        return endpoints.stream().mapToLong(UtpEndpoint::socketErrors).sum();
    }
}
