package io.ferry.transport.udt;

import com.barchart.udt.nio.SelectorProviderUDT;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.Transport;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.spi.ChildHandlers;
import io.ferry.transport.spi.ByteCountingHandler;
import io.ferry.transport.spi.LingeringChannels;
import io.ferry.transport.spi.RegisteredConnect;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * UDT as a Ferry transport, {@code udt://host:port}, on barchart-udt's JNI bundle of the C++ UDT4
 * library. Ferry's own channels ({@link UdtSocketChannel}, {@link UdtServerChannel}) run on Netty's NIO
 * event loop with barchart's selector provider, so nothing here depends on Netty's deprecated UDT
 * classes. Stream mode is the default; {@link UdtChannelOption#MESSAGE_MODE} selects UDT messages
 * (they run on a second event-loop group, created on first use, because a UDT selector serves one
 * socket type).
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

    private final UdtRuntime.Hold runtime;
    private final EventLoopGroup streamGroup;
    private EventLoopGroup messageGroup;
    private final ChannelGroup channels = new DefaultChannelGroup("ferry-udt", GlobalEventExecutor.INSTANCE);
    private boolean closed;

    /** @throws io.ferry.transport.TransportUnavailableException if UDT's native library cannot run here */
    public UdtTransport() {
        this.runtime = UdtRuntime.hold();
        this.streamGroup = newGroup(UdtSelectorProvider.STREAM, "ferry-udt");
    }

    private static EventLoopGroup newGroup(UdtSelectorProvider provider, String name) {
        return new MultiThreadIoEventLoopGroup(Runtime.getRuntime().availableProcessors(),
                new DefaultThreadFactory(name), NioIoHandler.newFactory(provider));
    }

    static SelectorProviderUDT provider(UdtSettings settings) {
        return settings.isMessageMode() ? SelectorProviderUDT.DATAGRAM : SelectorProviderUDT.STREAM;
    }

    private synchronized EventLoopGroup group(UdtSettings settings) {
        if (closed) {
            throw new IllegalStateException("the UDT transport is closed");
        }
        if (!settings.isMessageMode()) {
            return streamGroup;
        }
        if (messageGroup == null) {
            messageGroup = newGroup(UdtSelectorProvider.DATAGRAM, "ferry-udt-msg");
        }
        return messageGroup;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Set<ChannelOption<?>> supportedOptions() {
        return SUPPORTED;
    }

    @Override
    public ChannelFuture connect(InetSocketAddress remote, ChannelHandler handler, ChannelOptions options) {
        options.requireSupported(NAME, SUPPORTED);
        UdtSettings settings = UdtSettings.forConnection(options, remote);
        Bootstrap bootstrap = new Bootstrap().group(group(settings))
                .channelFactory(() -> newChannel(() -> UdtSocketChannel.newClient(settings)))
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        adopt(ch);
                        ch.pipeline().addLast(handler);
                    }
                });
        return RegisteredConnect.connect(bootstrap.register(), remote, ch -> apply(ch.config(), settings.nettyOptions));
    }

    @Override
    public ChannelFuture listen(InetSocketAddress local, ChannelHandler childHandler, ChannelOptions options) {
        options.requireSupported(NAME, SUPPORTED);
        UdtSettings settings = UdtSettings.of(options);
        EventLoopGroup group = group(settings);
        ServerBootstrap bootstrap = new ServerBootstrap().group(group)
                .channelFactory(() -> newChannel(() -> UdtServerChannel.newListener(settings)))
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.attr(FerryChannels.TRANSPORT).set(UdtTransport.this);
                        channels.add(ch);
                    }
                })
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        adopt(ch);
                        apply(ch.config(), settings.nettyOptions);
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
            channel.bind(local, bound);
        });
        return bound;
    }

    /**
     * Ferry's UDT channels for Netty's bootstraps, on this transport's UDT event loops ({@code MESSAGE_MODE}:
     * the message loops). A client made here does not know its peer yet, so it does not lower its MSS to
     * the route's MTU as {@link #connect} does; give {@link UdtChannelOption#MSS} where the path needs it.
     */
    @Override
    public io.ferry.transport.Bootstrapping bootstrapping(ChannelOptions options) {
        options.requireSupported(NAME, SUPPORTED);
        UdtSettings settings = UdtSettings.of(options);
        EventLoopGroup group = group(settings);
        io.netty.channel.ChannelFactory<UdtSocketChannel> clients = () -> {
            UdtSocketChannel ch = newChannel(() -> UdtSocketChannel.newClient(settings));
            adopt(ch);
            apply(ch.config(), settings.nettyOptions);
            return ch;
        };
        io.netty.channel.ChannelFactory<UdtServerChannel> listeners = () -> {
            UdtServerChannel ch = newChannel(() -> UdtServerChannel.newListener(settings));
            ch.attr(FerryChannels.TRANSPORT).set(this);
            channels.add(ch);
            ch.pipeline().addLast(new io.ferry.transport.spi.ChildAdoption(child -> {
                adopt(child);
                apply(child.config(), settings.nettyOptions);
            }));
            return ch;
        };
        return new io.ferry.transport.Bootstrapping(group, clients, listeners);
    }

    private interface ChannelOpener<C extends Channel> {
        C open() throws IOException;
    }

    private static <C extends Channel> C newChannel(ChannelOpener<C> opener) {
        try {
            return opener.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a UDT socket: " + e.getMessage(), e);
        }
    }

    private void adopt(Channel ch) {
        ch.attr(FerryChannels.TRANSPORT).set(this);
        ch.pipeline().addLast(ByteCountingHandler.NAME, new ByteCountingHandler());
        channels.add(ch);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void apply(ChannelConfig config, Map<ChannelOption<?>, Object> options) {
        for (Map.Entry<ChannelOption<?>, Object> e : options.entrySet()) {
            if (!config.setOption((ChannelOption) e.getKey(), e.getValue())) {
                throw new IllegalArgumentException("UDT channel did not accept " + e.getKey().name() + "=" + e.getValue());
            }
        }
    }

    @Override
    public TransportStatistics statistics(Channel channel) {
        if (FerryChannels.transportOf(channel) != this) {
            throw new IllegalArgumentException("channel " + channel + " belongs to another transport");
        }
        if (channel instanceof UdtSocketChannel) {
            return ((UdtSocketChannel) channel).statistics(NAME);
        }
        return TransportStatistics.builder(NAME, "listener").build();
    }

    @Override
    public ChannelFuture abort(Channel channel) {
        if (channel instanceof UdtSocketChannel) {
            return ((UdtSocketChannel) channel).abort();
        }
        return channel.close();
    }

    /**
     * Closes every channel (graceful closes may linger up to their {@link io.ferry.transport.FerryChannelOption#LINGER}),
     * stops the event loops and, if nothing else holds it, UDT's native runtime with its threads.
     *
     * @throws io.ferry.transport.DataLossException if a connection had to be reset with bytes unacknowledged
     */
    @Override
    public void close() {
        EventLoopGroup messages;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            messages = messageGroup;
        }
        List<UndeliveredDataException> losses;
        try {
            losses = LingeringChannels.closeAll(channels, ch -> ch instanceof UdtSocketChannel
                    ? ((UdtSocketChannel) ch).config().lingerDuration() : java.time.Duration.ZERO);
            streamGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
            if (messages != null) {
                messages.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
            }
        } finally {
            runtime.close();
        }
        LingeringChannels.report(losses);
    }

    /** Whether every thread of this transport has stopped (after {@link #close()}). */
    boolean terminated() {
        return streamGroup.isTerminated() && (messageGroup == null || messageGroup.isTerminated());
    }

    @Override
    public String toString() {
        return NAME + "/barchart-udt";
    }
}
