package io.ferry.transport.tcp;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.Transport;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.UnsupportedOptionException;
import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.spi.ChildHandlers;
import io.ferry.transport.spi.ByteCountingHandler;
import io.ferry.transport.spi.LingeringChannels;
import io.ferry.transport.spi.RegisteredConnect;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * TCP as a Ferry transport. Channels are Netty's own socket channels (epoll or NIO, see {@link TcpIo}),
 * so everything Netty users know applies unchanged.
 *
 * <p>Options are applied before the socket connects or listens, and a failure to apply one fails
 * the operation with {@link UnsupportedOptionException} instead of Netty's log-and-continue.
 * {@link FerryChannelOption#CONGESTION_CONTROL}, {@link FerryChannelOption#PACKET_SIZE} and
 * {@link FerryChannelOption#PACING_RATE} need native epoll.
 */
public final class TcpTransport implements Transport {

    /** The transport's name and URI scheme. */
    public static final String NAME = "tcp";

    /**
     * The most one read takes from a socket. Netty's adaptive default stops growing at 64 KiB; a bulk flow
     * read in 64 KiB pieces costs a system call, a socket lock and often an ACK per piece, which on
     * loopback halved what one receiving thread moves (see the README). The reads still start small
     * and shrink again when the socket holds less; {@code ChannelOption.RCVBUF_ALLOCATOR} replaces this.
     */
    public static final int MAX_READ = 1 << 20;
    /**
     * The most one read takes on channels made through {@link #bootstrapping} (engines'): Netty's own 64 KiB.
     * An Arrow Flight client reading 1 MiB buffers moved DoGet at 0.66-0.77x plain Flight on loopback, at
     * 1.18-1.47x with 64 KiB, in the same runs (DoPut alike either way); see the module README.
     */
    public static final int ENGINE_MAX_READ = 64 << 10;
    private static final int MIN_READ = 64;
    private static final int INITIAL_READ = 2048;

    private static final Set<ChannelOption<?>> PORTABLE_OPTIONS = Set.of(
            FerryChannelOption.SEND_BUFFER_SIZE, FerryChannelOption.RECEIVE_BUFFER_SIZE, FerryChannelOption.CONNECT_TIMEOUT,
            FerryChannelOption.LINGER, ChannelOption.TCP_NODELAY, ChannelOption.SO_KEEPALIVE, ChannelOption.SO_LINGER, ChannelOption.SO_REUSEADDR,
            ChannelOption.SO_SNDBUF, ChannelOption.SO_RCVBUF, ChannelOption.SO_BACKLOG, ChannelOption.IP_TOS,
            ChannelOption.CONNECT_TIMEOUT_MILLIS, ChannelOption.AUTO_READ, ChannelOption.AUTO_CLOSE,
            ChannelOption.ALLOW_HALF_CLOSURE, ChannelOption.WRITE_BUFFER_WATER_MARK, ChannelOption.ALLOCATOR,
            ChannelOption.RCVBUF_ALLOCATOR, ChannelOption.MESSAGE_SIZE_ESTIMATOR, ChannelOption.WRITE_SPIN_COUNT);

    private static final Set<ChannelOption<?>> NATIVE_ONLY_OPTIONS = Set.of(
            FerryChannelOption.CONGESTION_CONTROL, FerryChannelOption.PACKET_SIZE, FerryChannelOption.PACING_RATE,
            TcpSocketOptions.TCP_CONGESTION, TcpSocketOptions.TCP_MAXSEG, TcpSocketOptions.SO_MAX_PACING_RATE);

    /** Options that belong to the listening socket only. */
    private static final Set<ChannelOption<?>> LISTENER_ONLY = Set.of(ChannelOption.SO_BACKLOG, ChannelOption.SO_REUSEADDR);

    /** Options set on the listening socket and also on every accepted one (the kernel inherits them, or they must be set early). */
    private static final Set<ChannelOption<?>> LISTENER_AND_CHILD = Set.of(
            FerryChannelOption.RECEIVE_BUFFER_SIZE, ChannelOption.SO_RCVBUF, FerryChannelOption.CONGESTION_CONTROL);

    private final TcpIo io;
    private final EventLoopGroup group;
    private final ChannelGroup channels = new DefaultChannelGroup("ferry-tcp", GlobalEventExecutor.INSTANCE);
    private final Set<ChannelOption<?>> supported;

    public TcpTransport(TcpIo io) {
        this.io = io;
        this.group = new MultiThreadIoEventLoopGroup(Runtime.getRuntime().availableProcessors(),
                new DefaultThreadFactory("ferry-tcp"), io.newIoHandlerFactory());
        Set<ChannelOption<?>> options = new LinkedHashSet<>(PORTABLE_OPTIONS);
        if (io.isNative()) {
            options.addAll(NATIVE_ONLY_OPTIONS);
        }
        this.supported = Collections.unmodifiableSet(options);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** The I/O implementation in use. */
    public TcpIo io() {
        return io;
    }

    @Override
    public Set<ChannelOption<?>> supportedOptions() {
        return supported;
    }

    @Override
    public ChannelFuture connect(InetSocketAddress remote, ChannelHandler handler, ChannelOptions options) {
        checkOptions(options);
        Bootstrap bootstrap = new Bootstrap().group(group).channel(io.channelClass())
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        adopt(ch);
                        ch.pipeline().addLast(handler);
                    }
                });
        return RegisteredConnect.connect(bootstrap.register(), remote, ch -> apply(ch, options.asMap()));
    }

    @Override
    public ChannelFuture listen(InetSocketAddress local, ChannelHandler childHandler, ChannelOptions options) {
        checkOptions(options);
        Map<ChannelOption<?>, Object> listenerOptions = listenerOptions(options);
        Map<ChannelOption<?>, Object> childOptions = childOptions(options);
        ServerBootstrap bootstrap = new ServerBootstrap().group(group).channel(io.serverChannelClass())
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.attr(FerryChannels.TRANSPORT).set(TcpTransport.this);
                        channels.add(ch);
                    }
                })
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        adopt(ch);
                        apply(ch, childOptions);
                        ChildHandlers.addLast(ch, childHandler);
                    }
                });
        ChannelFuture registered = bootstrap.register();
        Channel channel = registered.channel();
        ChannelPromise bound = channel.newPromise();
        registered.addListener(f -> {
            if (!f.isSuccess()) {
                bound.setFailure(f.cause());
                return;
            }
            try {
                apply(channel, listenerOptions);
            } catch (RuntimeException e) {
                channel.close();
                bound.setFailure(e);
                return;
            }
            channel.bind(local, bound);
        });
        return bound;
    }

    /**
     * Netty's epoll (or NIO) socket channels, made the transport's as {@link #connect}/{@link #listen} make
     * them: {@code options} apply to every client, every listener and every accepted connection.
     */
    @Override
    public io.ferry.transport.Bootstrapping bootstrapping(ChannelOptions options) {
        checkOptions(options);
        Map<ChannelOption<?>, Object> listenerOptions = listenerOptions(options);
        Map<ChannelOption<?>, Object> childOptions = childOptions(options);
        io.netty.channel.ChannelFactory<io.netty.channel.socket.SocketChannel> clients = () -> {
            io.netty.channel.socket.SocketChannel ch = newInstance(io.channelClass());
            adopt(ch, ENGINE_MAX_READ);
            apply(ch, childOptions);
            return ch;
        };
        io.netty.channel.ChannelFactory<io.netty.channel.socket.ServerSocketChannel> listeners = () -> {
            io.netty.channel.socket.ServerSocketChannel ch = (io.netty.channel.socket.ServerSocketChannel) newInstance(io.serverChannelClass());
            ch.attr(FerryChannels.TRANSPORT).set(this);
            channels.add(ch);
            apply(ch, listenerOptions);
            ch.pipeline().addLast(new io.ferry.transport.spi.ChildAdoption(child -> {
                adopt(child, ENGINE_MAX_READ);
                apply(child, childOptions);
            }));
            return ch;
        };
        return new io.ferry.transport.Bootstrapping(group, clients, listeners);
    }

    /** The options a listener socket takes itself. */
    private static Map<ChannelOption<?>, Object> listenerOptions(ChannelOptions options) {
        Map<ChannelOption<?>, Object> map = new java.util.LinkedHashMap<>();
        options.asMap().forEach((option, value) -> {
            if (LISTENER_ONLY.contains(option) || LISTENER_AND_CHILD.contains(option)) {
                map.put(option, value);
            }
        });
        return map;
    }

    /** The options every connection takes (a client, or one a listener accepted). */
    private static Map<ChannelOption<?>, Object> childOptions(ChannelOptions options) {
        Map<ChannelOption<?>, Object> map = new java.util.LinkedHashMap<>();
        options.asMap().forEach((option, value) -> {
            if (!LISTENER_ONLY.contains(option)) {
                map.put(option, value);
            }
        });
        return map;
    }

    private static <C extends Channel> C newInstance(Class<C> type) {
        try {
            return type.getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create a " + type.getName() + ": " + e, e);
        }
    }

    private void adopt(Channel ch) {
        adopt(ch, MAX_READ);
    }

    private void adopt(Channel ch, int maxRead) {
        ch.attr(FerryChannels.TRANSPORT).set(this);
        ch.config().setRecvByteBufAllocator(new AdaptiveRecvByteBufAllocator(MIN_READ, INITIAL_READ, maxRead));
        ch.config().setMessageSizeEstimator(FerryChannels.FILE_REGIONS_COUNTED); // a queued file region holds writability
        ch.pipeline().addLast(ByteCountingHandler.NAME, new ByteCountingHandler());
        ch.pipeline().addLast(TcpLingeringClose.NAME, new TcpLingeringClose());
        channels.add(ch);
    }

    private void checkOptions(ChannelOptions options) {
        if (!io.isNative()) {
            for (ChannelOption<?> option : options.asMap().keySet()) {
                if (NATIVE_ONLY_OPTIONS.contains(option)) {
                    throw new UnsupportedOptionException("TCP option " + option.name()
                            + " needs Netty's native epoll transport, which is not in use here ("
                            + io.nativeUnavailabilityCause().map(Throwable::getMessage).orElse("unknown reason") + ")");
                }
            }
        }
        options.requireSupported(NAME, supported);
        options.get(FerryChannelOption.CONGESTION_CONTROL).ifPresent(CongestionControlAlgorithms::requireAvailable);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void apply(Channel channel, Map<ChannelOption<?>, Object> options) {
        ChannelConfig config = channel.config();
        for (Map.Entry<ChannelOption<?>, Object> e : options.entrySet()) {
            ChannelOption option = e.getKey();
            Object value = e.getValue();
            if (option == FerryChannelOption.LINGER) {
                TcpLingeringClose lingering = TcpLingeringClose.of(channel);
                if (lingering != null) {
                    lingering.linger((java.time.Duration) value);
                }
            } else if (option == FerryChannelOption.SEND_BUFFER_SIZE) {
                set(config, ChannelOption.SO_SNDBUF, value, option);
            } else if (option == FerryChannelOption.RECEIVE_BUFFER_SIZE) {
                set(config, ChannelOption.SO_RCVBUF, value, option);
            } else if (option == FerryChannelOption.CONNECT_TIMEOUT) {
                set(config, ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) ((java.time.Duration) value).toMillis(), option);
            } else if (option == FerryChannelOption.CONGESTION_CONTROL) {
                setCongestionControl(config, (String) value);
            } else if (option == FerryChannelOption.PACKET_SIZE) {
                set(config, TcpSocketOptions.TCP_MAXSEG, value, option);
            } else if (option == FerryChannelOption.PACING_RATE) {
                set(config, TcpSocketOptions.SO_MAX_PACING_RATE, TcpSocketOptions.pacingRateValue((Long) value), option);
            } else {
                set(config, option, value, option);
            }
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void set(ChannelConfig config, ChannelOption target, Object value, ChannelOption asked) {
        boolean applied;
        try {
            applied = config.setOption(target, value);
        } catch (ChannelException e) {
            throw new UnsupportedOptionException("cannot apply TCP option " + asked.name() + "=" + value + ": " + rootMessage(e), e);
        }
        if (!applied) {
            throw new UnsupportedOptionException("TCP channel " + config.getClass().getSimpleName() + " does not accept option " + asked.name());
        }
    }

    private static void setCongestionControl(ChannelConfig config, String algorithm) {
        try {
            config.setOption(TcpSocketOptions.TCP_CONGESTION, TcpSocketOptions.congestionControlValue(algorithm));
        } catch (ChannelException e) {
            List<String> allowed = CongestionControlAlgorithms.allowed();
            throw new UnsupportedOptionException("cannot use TCP congestion control '" + algorithm + "': " + rootMessage(e)
                    + (allowed.isEmpty() ? "" : "; without CAP_NET_ADMIN a process may use: " + String.join(", ", allowed)
                    + " (" + CongestionControlAlgorithms.ALLOWED + ")"), e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return String.valueOf(t.getMessage());
    }

    @Override
    public TransportStatistics statistics(Channel channel) {
        if (FerryChannels.transportOf(channel) != this) {
            throw new IllegalArgumentException("channel " + channel + " belongs to another transport");
        }
        TransportStatistics.Builder stats = TransportStatistics.builder(NAME, io.name());
        ByteCountingHandler counter = ByteCountingHandler.of(channel);
        if (counter != null) {
            stats.bytesSent(counter.bytesSent()).bytesReceived(counter.bytesReceived());
        }
        TcpInfoSnapshot info = TcpInfoSnapshot.of(channel);
        if (info != null) {
            stats.smoothedRttMicros(info.rttMicros())
                    .rttVarianceMicros(info.rttVarianceMicros())
                    .congestionWindowBytes(info.congestionWindowBytes())
                    .retransmissions(info.retransmissions())
                    .packetsLost(info.lost());
        }
        return stats.build();
    }

    @Override
    public ChannelFuture abort(Channel channel) {
        TcpLingeringClose lingering = TcpLingeringClose.of(channel);
        if (lingering != null) {
            lingering.abortOnClose();
        }
        try {
            channel.config().setOption(ChannelOption.SO_LINGER, 0);
        } catch (ChannelException alreadyClosed) {
            // closing below is all that is left to do
        }
        return channel.close();
    }

    /**
     * Closes every channel gracefully (each connection may linger up to its {@link FerryChannelOption#LINGER}
     * for the peer's acknowledgements), then the event loops.
     *
     * @throws io.ferry.transport.DataLossException if a connection had to be reset with bytes unacknowledged
     */
    @Override
    public void close() {
        List<UndeliveredDataException> losses = LingeringChannels.closeAll(channels, ch -> {
            TcpLingeringClose lingering = TcpLingeringClose.of(ch);
            return lingering == null ? java.time.Duration.ZERO : lingering.linger();
        });
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        LingeringChannels.report(losses);
    }

    /** Whether every thread of this transport has stopped (after {@link #close()}). */
    boolean terminated() {
        return group.isTerminated();
    }

    @Override
    public String toString() {
        return "tcp/" + io.name();
    }
}
