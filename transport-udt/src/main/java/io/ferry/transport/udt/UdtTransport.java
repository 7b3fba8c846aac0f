package io.ferry.transport.udt;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.Transport;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.spi.LingeringChannels;
import io.ferry.transport.spi.RegisteredConnect;
import io.ferry.transport.udp.UdpIo;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.PromiseCombiner;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * UDT as a Ferry transport, {@code udt://host:port}, on Ferry's own UDT4 engine: the sans-I/O core of
 * {@code udt-proto} (wire-compatible with the C++ UDT4 4.11) over the UDP driver {@code utp://} uses
 * ({@code transport-udp}: epoll or NIO, GSO, GRO, one {@code SO_REUSEPORT} socket per event loop per
 * listener). No native library is loaded. Each client connection has its own UDP socket, connected to
 * the peer (so an ICMP "port unreachable" refuses it at once); a listener's connections share its sockets.
 * IPv4 and IPv6.
 */
public final class UdtTransport implements Transport {

    /** The transport's name and URI scheme. */
    public static final String NAME = "udt";

    private static final Set<ChannelOption<?>> SUPPORTED;

    static {
        Set<ChannelOption<?>> options = new LinkedHashSet<>(UdtSettings.COMMON_OPTIONS);
        options.addAll(UdtSettings.UDT_OPTIONS);
        options.addAll(UdtSettings.NETTY_OPTIONS);
        SUPPORTED = Collections.unmodifiableSet(options);
    }

    private final UdpIo udp;
    private final EventLoopGroup group;
    private final int loopCount;
    private final ChannelGroup channels = new DefaultChannelGroup("ferry-udt", GlobalEventExecutor.INSTANCE);
    private final ChannelGroup sockets = new DefaultChannelGroup("ferry-udt-sockets", GlobalEventExecutor.INSTANCE);

    /** A transport on the UDP socket implementation this platform offers (epoll on Linux, NIO elsewhere). */
    public UdtTransport() {
        this(UdpIo.detect("ferry.udt"));
    }

    /** A transport on {@code udp}. */
    public UdtTransport(UdpIo udp) {
        this.udp = udp;
        this.loopCount = Runtime.getRuntime().availableProcessors();
        this.group = new io.ferry.transport.spi.HomeLoopGroup(loopCount, new DefaultThreadFactory("ferry-udt"), udp.newIoHandlerFactory());
    }

    @Override
    public String name() {
        return NAME;
    }

    /** The UDP socket implementation in use. */
    public UdpIo io() {
        return udp;
    }

    @Override
    public Set<ChannelOption<?>> supportedOptions() {
        return SUPPORTED;
    }

    @Override
    public ChannelFuture connect(InetSocketAddress remote, ChannelHandler handler, ChannelOptions options) {
        options.requireSupported(NAME, SUPPORTED);
        UdtSettings settings = UdtSettings.forConnection(options, remote);
        UdtSocketChannel channel = newClient(settings);
        channel.pipeline().addLast(handler);
        return RegisteredConnect.connect(group.register(channel), remote, ch -> { });
    }

    private UdtSocketChannel newClient(UdtSettings settings) {
        UdtSocketChannel channel = new UdtSocketChannel(this, settings);
        apply(channel, settings.nettyOptions);
        adopt(channel);
        return channel;
    }

    /** Opens the client's own socket on the channel's loop, then starts the handshake. */
    void openClientEndpoint(UdtSocketChannel channel, InetSocketAddress remote) {
        ChannelFuture socket = UdtEndpoint.openClient(this, channel.settings(), channel.eventLoop(), remote, channel.bindAddress());
        sockets.add(socket.channel());
        socket.addListener(f -> {
            if (!f.isSuccess()) {
                channel.connectFailed(f.cause());
            } else if (!channel.settings().rendezvous && remote.equals(socket.channel().localAddress())) {
                socket.channel().close();
                channel.connectFailed(selfConnect(remote));
            } else {
                channel.startConnect(UdtEndpoint.of(socket.channel()), remote);
            }
        });
    }

    /**
     * The kernel gave the client's socket the very port it connects to (an ephemeral port a listener had just
     * freed): its handshake would reach only itself and wait out the connect timeout. Nothing else can hold
     * that port while this socket does, so it is a refusal, at once (TCP would connect to itself instead).
     */
    private static ConnectException selfConnect(InetSocketAddress remote) {
        return new ConnectException("Connection refused: nothing listens for UDT at " + remote
                + " (the client's own socket was given that address)");
    }

    @Override
    public ChannelFuture listen(InetSocketAddress local, ChannelHandler childHandler, ChannelOptions options) {
        options.requireSupported(NAME, SUPPORTED);
        UdtSettings settings = UdtSettings.of(options);
        UdtServerChannel server = new UdtServerChannel(this, settings, new io.netty.channel.ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                apply(ch, settings.nettyOptions);
                adopt(ch);
                io.ferry.transport.spi.ChildHandlers.addLast(ch, childHandler);
            }
        });
        server.attr(FerryChannels.TRANSPORT).set(this);
        channels.add(server);
        ChannelPromise bound = server.newPromise();
        group.register(server).addListener(f -> {
            if (!f.isSuccess()) {
                bound.setFailure(f.cause());
                return;
            }
            openListener(server, local, bound);
        });
        return bound;
    }

    /**
     * Ferry's UDT channels for Netty's bootstraps, on this transport's loops ({@link io.ferry.transport.spi.HomeLoopGroup}
     * keeps each accepted connection on its UDP socket's loop). A client made here does not know its peer
     * yet, so it does not lower its MSS to the route's MTU as {@link #connect} does.
     */
    @Override
    public io.ferry.transport.Bootstrapping bootstrapping(ChannelOptions options) {
        options.requireSupported(NAME, SUPPORTED);
        UdtSettings settings = UdtSettings.of(options);
        io.netty.channel.ChannelFactory<UdtSocketChannel> clients = () -> newClient(settings);
        io.netty.channel.ChannelFactory<UdtServerChannel> listeners = () -> {
            UdtServerChannel server = new UdtServerChannel(this, settings, null);
            server.pipeline().addLast(new UdtServerChannel.Binding());
            server.pipeline().addLast(new io.ferry.transport.spi.ChildAdoption(child -> {
                apply(child, settings.nettyOptions);
                adopt(child);
            }));
            server.attr(FerryChannels.TRANSPORT).set(this);
            channels.add(server);
            return server;
        };
        return new io.ferry.transport.Bootstrapping(group, clients, listeners);
    }

    /** Opens a registered listener's UDP sockets (one per loop it gets) on {@code local}; completes {@code bound}. */
    void openListener(UdtServerChannel server, InetSocketAddress local, ChannelPromise bound) {
        openListener(server, local, bound, UdpIo.PORT_CLAIM_ATTEMPTS);
    }

    private void openListener(UdtServerChannel server, InetSocketAddress requested, ChannelPromise bound, int attempts) {
        UdtSettings settings = server.childSettings();
        List<EventLoop> loops = listenerLoops(server.eventLoop());
        boolean shared = loops.size() > 1;
        InetSocketAddress local = requested;
        try {
            // a plain bind proves the address free, as TCP's does: UDP sockets of one user could otherwise share it
            local = UdpIo.claimFreeAddress(requested, "UDT");
        } catch (java.io.IOException e) {
            server.close();
            bound.setFailure(e);
            return;
        }
        boolean mayRetry = requested.getPort() == 0 && attempts > 1;
        ChannelFuture first = UdtEndpoint.openServer(this, settings, loops.get(0), local, shared);
        sockets.add(first.channel());
        first.addListener(s -> {
            if (!s.isSuccess()) {
                if (mayRetry && UdpIo.isAddressTaken(s.cause())) {
                    server.eventLoop().execute(() -> openListener(server, requested, bound, attempts - 1));
                    return;
                }
                server.close();
                bound.setFailure(s.cause());
                return;
            }
            InetSocketAddress actual = (InetSocketAddress) first.channel().localAddress();
            List<ChannelFuture> opened = new ArrayList<>();
            opened.add(first);
            for (EventLoop loop : loops.subList(1, loops.size())) {
                ChannelFuture more = UdtEndpoint.openServer(this, settings, loop, actual, true);
                sockets.add(more.channel());
                opened.add(more);
            }
            PromiseCombiner all = new PromiseCombiner(server.eventLoop());
            server.eventLoop().execute(() -> {
                opened.forEach(all::add);
                ChannelPromise done = server.newPromise();
                all.finish(done);
                done.addListener(d -> {
                    if (d.isSuccess()) {
                        List<UdtEndpoint> endpoints = new ArrayList<>();
                        opened.forEach(o -> endpoints.add(UdtEndpoint.of(o.channel())));
                        server.bound(endpoints);
                        bound.setSuccess();
                        return;
                    }
                    opened.forEach(o -> o.channel().close());
                    if (mayRetry && UdpIo.isAddressTaken(d.cause())) {
                        openListener(server, requested, bound, attempts - 1);
                        return;
                    }
                    server.close();
                    bound.setFailure(d.cause());
                });
            });
        });
    }

    private List<EventLoop> listenerLoops(EventLoop own) {
        List<EventLoop> loops = new ArrayList<>();
        loops.add(own);
        int wanted = udp.listenerSockets(loopCount);
        for (EventExecutor e : group) {
            if (loops.size() >= wanted) {
                break;
            }
            if (e != own) {
                loops.add((EventLoop) e);
            }
        }
        return loops;
    }

    private void adopt(Channel ch) {
        ch.attr(FerryChannels.TRANSPORT).set(this);
        ch.pipeline().addLast(io.ferry.transport.spi.ByteCountingHandler.NAME, new io.ferry.transport.spi.ByteCountingHandler());
        channels.add(ch);
    }

    void track(Channel channel) {
        channels.add(channel);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void apply(Channel ch, Map<ChannelOption<?>, Object> options) {
        for (Map.Entry<ChannelOption<?>, Object> e : options.entrySet()) {
            if (!ch.config().setOption((ChannelOption) e.getKey(), e.getValue())) {
                throw new IllegalArgumentException("UDT channel did not accept " + e.getKey().name() + "=" + e.getValue());
            }
        }
    }

    private static boolean inProgress(Channel socket) {
        if (!socket.isOpen()) {
            return false;
        }
        try {
            return socket.eventLoop().submit(() -> UdtEndpoint.of(socket).hasConnectionsInProgress()).get(1, TimeUnit.SECONDS);
        } catch (Exception closedMeanwhile) {
            return false;
        }
    }

    @Override
    public TransportStatistics statistics(Channel channel) {
        if (FerryChannels.transportOf(channel) != this) {
            throw new IllegalArgumentException("channel " + channel + " belongs to another transport");
        }
        if (channel instanceof UdtSocketChannel udt) {
            return udt.statistics();
        }
        return TransportStatistics.builder(NAME, "listener").build();
    }

    @Override
    public ChannelFuture abort(Channel channel) {
        if (channel instanceof UdtSocketChannel udt) {
            return udt.abort();
        }
        return channel.close();
    }

    /**
     * Closes every channel gracefully (each within its {@link io.ferry.transport.FerryChannelOption#LINGER}),
     * then every socket and thread.
     *
     * @throws io.ferry.transport.DataLossException if a connection had to be reset with bytes unacknowledged
     */
    @Override
    public void close() {
        List<UndeliveredDataException> losses = LingeringChannels.closeAll(channels,
                ch -> ch instanceof UdtSocketChannel udt ? udt.config().getLinger() : Duration.ZERO);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (System.nanoTime() < deadline && sockets.stream().anyMatch(UdtTransport::inProgress)) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        sockets.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        LingeringChannels.report(losses);
    }

    /** Whether every thread of this transport has stopped (after {@link #close()}). */
    boolean terminated() {
        return group.isTerminated();
    }

    @Override
    public String toString() {
        return NAME + "/" + udp.name();
    }
}
