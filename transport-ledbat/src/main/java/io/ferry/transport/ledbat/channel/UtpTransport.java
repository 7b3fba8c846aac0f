package io.ferry.transport.ledbat.channel;

import io.ferry.transport.udp.UdpIo;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.Transport;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.spi.LingeringChannels;
import io.ferry.transport.spi.RegisteredConnect;
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
import io.netty.util.concurrent.PromiseCombiner;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * uTP (BEP 29) with LEDBAT congestion control as a Ferry transport: {@code utp://host:port}, alias
 * {@code ledbat://}. A listener's connections share its UDP sockets (one per event loop with epoll,
 * bound with {@code SO_REUSEPORT}; see {@link UtpServerChannel}); each client connection has its own
 * UDP socket connected to the peer, so an ICMP "port unreachable" reports a refused connection at
 * once, as with TCP.
 */
public final class UtpTransport implements Transport {

    /** The transport's name and main scheme. */
    public static final String NAME = "utp";

    private final UdpIo io;
    private final EventLoopGroup group;
    private final int loopCount;
    private final ChannelGroup channels = new DefaultChannelGroup("ferry-utp", GlobalEventExecutor.INSTANCE);
    private final ChannelGroup sockets = new DefaultChannelGroup("ferry-utp-sockets", GlobalEventExecutor.INSTANCE);
    private final Set<ChannelOption<?>> supported;

    public UtpTransport(UdpIo io) {
        this.io = io;
        this.loopCount = Runtime.getRuntime().availableProcessors();
        this.group = new io.ferry.transport.spi.HomeLoopGroup(loopCount, new DefaultThreadFactory("ferry-utp"), io.newIoHandlerFactory());
        Set<ChannelOption<?>> options = new LinkedHashSet<>(UtpSettings.PROTOCOL_OPTIONS);
        options.addAll(UtpSettings.CHANNEL_OPTIONS);
        options.addAll(UtpSettings.LISTENER_OPTIONS);
        this.supported = Collections.unmodifiableSet(options);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** The UDP socket implementation in use. */
    public UdpIo io() {
        return io;
    }

    @Override
    public Set<ChannelOption<?>> supportedOptions() {
        return supported;
    }

    @Override
    public ChannelFuture connect(InetSocketAddress remote, ChannelHandler handler, ChannelOptions options) {
        options.requireSupported(NAME, supported);
        for (ChannelOption<?> option : options.asMap().keySet()) {
            if (UtpSettings.LISTENER_OPTIONS.contains(option)) {
                throw new io.ferry.transport.UnsupportedOptionException("uTP option " + option.name()
                        + " bounds what a listener admits; give it to listen, not connect");
            }
        }
        UtpSettings settings = UtpSettings.of(options, ByteBufAllocator.DEFAULT);
        UtpSocketChannel channel = new UtpSocketChannel(this, settings);
        settings.applyTo(channel);
        channel.attr(FerryChannels.TRANSPORT).set(this);
        channel.pipeline().addLast(handler);
        track(channel);
        return RegisteredConnect.connect(group.register(channel), remote, ch -> { });
    }

    /** Opens the client's own socket on the channel's loop, then starts the handshake. */
    void openClientEndpoint(UtpSocketChannel channel, InetSocketAddress remote) {
        ChannelFuture socket = UtpEndpoint.openClient(this, channel.eventLoop(), remote, channel.bindAddress(),
                channel.settings().protocol.packetSize());
        sockets.add(socket.channel());
        socket.addListener(f -> {
            if (f.isSuccess()) {
                channel.startConnect(UtpEndpoint.of(socket.channel()), remote);
            } else {
                channel.connectFailed(f.cause());
            }
        });
    }

    @Override
    public ChannelFuture listen(InetSocketAddress local, ChannelHandler childHandler, ChannelOptions options) {
        options.requireSupported(NAME, supported);
        UtpSettings settings = UtpSettings.of(options, ByteBufAllocator.DEFAULT);
        UtpServerChannel server = new UtpServerChannel(this, settings, childHandler);
        server.attr(FerryChannels.TRANSPORT).set(this);
        track(server);
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
     * Ferry's uTP channels for Netty's bootstraps, on this transport's loops ({@link io.ferry.transport.spi.HomeLoopGroup},
     * which keeps each accepted connection on its UDP socket's loop). {@code options} apply to every
     * client, listener and accepted connection.
     */
    @Override
    public io.ferry.transport.Bootstrapping bootstrapping(ChannelOptions options) {
        options.requireSupported(NAME, supported);
        UtpSettings settings = UtpSettings.of(options, ByteBufAllocator.DEFAULT);
        io.netty.channel.ChannelFactory<UtpSocketChannel> clients = () -> {
            UtpSocketChannel channel = new UtpSocketChannel(this, settings);
            settings.applyTo(channel);
            channel.attr(FerryChannels.TRANSPORT).set(this);
            track(channel);
            return channel;
        };
        io.netty.channel.ChannelFactory<UtpServerChannel> listeners = () -> {
            UtpServerChannel server = new UtpServerChannel(this, settings, null);
            server.pipeline().addLast(new UtpServerChannel.Binding());
            server.attr(FerryChannels.TRANSPORT).set(this);
            track(server);
            return server;
        };
        return new io.ferry.transport.Bootstrapping(group, clients, listeners);
    }

    /** Opens a registered listener's UDP sockets (one per loop it gets) on {@code local}; completes {@code bound}. */
    void openListener(UtpServerChannel server, InetSocketAddress local, ChannelPromise bound) {
        openListener(server, local, bound, UdpIo.PORT_CLAIM_ATTEMPTS);
    }

    private void openListener(UtpServerChannel server, InetSocketAddress requested, ChannelPromise bound, int attempts) {
        UtpSettings settings = server.childSettings();
        List<EventLoop> loops = listenerLoops(server.eventLoop());
        boolean shared = loops.size() > 1;
        int packetSize = settings.protocol.packetSize();
        InetSocketAddress local = requested;
        if (shared) {
            try {
                local = UdpIo.claimFreeAddress(requested, "uTP");
            } catch (java.io.IOException e) {
                server.close();
                bound.setFailure(e);
                return;
            }
        }
        boolean mayRetry = shared && requested.getPort() == 0 && attempts > 1;
        // the first socket settles the port (0 picks one); the others bind that same address
        ChannelFuture first = UtpEndpoint.openServer(this, loops.get(0), local, packetSize, shared);
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
                ChannelFuture more = UtpEndpoint.openServer(this, loop, actual, packetSize, true);
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
                        List<UtpEndpoint> endpoints = new ArrayList<>();
                        opened.forEach(o -> endpoints.add(UtpEndpoint.of(o.channel())));
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

    /** The event loops a listener receives on: its own first, then as many others as it gets sockets. */
    private List<EventLoop> listenerLoops(EventLoop own) {
        List<EventLoop> loops = new ArrayList<>();
        loops.add(own);
        int wanted = io.listenerSockets(loopCount);
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

    private static boolean inProgress(Channel socket) {
        if (!socket.isOpen()) {
            return false;
        }
        try {
            return socket.eventLoop().submit(() -> UtpEndpoint.of(socket).hasConnectionsInProgress()).get(1, TimeUnit.SECONDS);
        } catch (Exception closedMeanwhile) {
            return false;
        }
    }

    /** Closes {@code socket} with the transport, like the sockets a listener opens when it binds. */
    void trackSocket(Channel socket) {
        sockets.add(socket);
    }

    void track(Channel channel) {
        channels.add(channel);
    }

    @Override
    public TransportStatistics statistics(Channel channel) {
        if (FerryChannels.transportOf(channel) != this) {
            throw new IllegalArgumentException("channel " + channel + " belongs to another transport");
        }
        if (channel instanceof UtpSocketChannel) {
            return ((UtpSocketChannel) channel).statistics();
        }
        return TransportStatistics.builder(NAME, io.name()).build();
    }

    @Override
    public ChannelFuture abort(Channel channel) {
        if (!(channel instanceof UtpSocketChannel)) {
            return channel.close();
        }
        return ((UtpSocketChannel) channel).abort();
    }

    /**
     * Closes every channel gracefully, waiting for each to deliver what it holds within its
     * {@link FerryChannelOption#LINGER}, lets the connections that are only waiting for a peer's FIN
     * exchange it for a moment, then closes every socket and thread.
     *
     * @throws io.ferry.transport.DataLossException if a connection had to be reset with bytes unacknowledged
     */
    @Override
    public void close() {
        List<UndeliveredDataException> losses = LingeringChannels.closeAll(channels,
                ch -> ch instanceof UtpSocketChannel ? ((UtpSocketChannel) ch).config().getLinger() : Duration.ZERO);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (System.nanoTime() < deadline && sockets.stream().anyMatch(UtpTransport::inProgress)) {
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
        return "utp/" + io.name();
    }
}
