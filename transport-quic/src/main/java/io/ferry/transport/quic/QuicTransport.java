package io.ferry.transport.quic;

import io.ferry.transport.Bootstrapping;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.Transport;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.spi.HomeLoopGroup;
import io.ferry.transport.spi.LingeringChannels;
import io.ferry.transport.spi.RegisteredConnect;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicChannelOption;
import io.netty.handler.codec.quic.QuicClientCodecBuilder;
import io.netty.handler.codec.quic.QuicServerCodecBuilder;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * QUIC (RFC 9000, with TLS 1.3 per RFC 9001) as a Ferry transport, {@code quic://host:port}, on Netty's QUIC
 * codec (quiche under BoringSSL): one QUIC connection per Ferry connection, carrying one bidirectional
 * stream ({@link QuicSocketChannel}); a listener serves every connection on one UDP socket
 * ({@link QuicServerChannel}). Each client has its own UDP socket, connected to the peer, so a refused
 * connection fails at once as with TCP.
 */
public final class QuicTransport implements Transport {

    /** The transport's name and scheme. */
    public static final String NAME = "quic";

    /**
     * Application close codes (RFC 9000 section 20.2) Ferry sends in CONNECTION_CLOSE and STOP_SENDING.
     * {@code NO_ERROR}: the closing end has the peer's whole stream, its end included.
     */
    static final int NO_ERROR = 0;
    static final int ABORTED = 1;
    static final int STOPPED = 2;
    static final int REFUSED = 3;
    static final int PROTOCOL = 4;
    /** The closing end had every byte the peer sent, but not its end of stream, and stopped waiting for it. */
    static final int GONE = 5;

    private final QuicIo io;
    private final HomeLoopGroup group;
    private final ChannelGroup channels = new DefaultChannelGroup("ferry-quic", GlobalEventExecutor.INSTANCE);
    private final ChannelGroup sockets = new DefaultChannelGroup("ferry-quic-sockets", GlobalEventExecutor.INSTANCE);
    private final ChannelGroup draining = new DefaultChannelGroup("ferry-quic-draining", GlobalEventExecutor.INSTANCE);
    /** Every QUIC connection, so that closing the transport closes each with a CONNECTION_CLOSE, not by silence. */
    private final ChannelGroup connections = new DefaultChannelGroup("ferry-quic-connections", GlobalEventExecutor.INSTANCE);
    private final QuicTls tls = new QuicTls();

    QuicTransport(QuicIo io) {
        this.io = io;
        this.group = new HomeLoopGroup(Runtime.getRuntime().availableProcessors(), new DefaultThreadFactory("ferry-quic"),
                io.newIoHandlerFactory());
    }

    @Override
    public String name() {
        return NAME;
    }

    QuicIo io() {
        return io;
    }

    @Override
    public Set<ChannelOption<?>> supportedOptions() {
        return QuicSettings.supported();
    }

    /**
     * The SHA-256 fingerprint ({@code sha256:HEX}) of the self-signed certificate this transport's listeners
     * present when no {@link QuicOption#SERVER_TLS} is given: what clients pin with {@link QuicOption#PIN}.
     */
    public String certificateFingerprint() {
        return tls.fingerprint();
    }

    // ------------------------------------------------------------------ client

    @Override
    public ChannelFuture connect(InetSocketAddress remote, ChannelHandler handler, ChannelOptions options) {
        QuicSettings settings = QuicSettings.of(options);
        QuicSocketChannel channel = newClient(settings);
        channel.pipeline().addLast(handler);
        return RegisteredConnect.connect(group.register(channel), remote, ch -> { });
    }

    private QuicSocketChannel newClient(QuicSettings settings) {
        QuicSocketChannel channel = new QuicSocketChannel(this, settings);
        settings.applyTo(channel);
        if (settings.connectTimeout != null) {
            channel.config().setConnectTimeoutMillis((int) settings.connectTimeout.toMillis());
        }
        channel.attr(FerryChannels.TRANSPORT).set(this);
        track(channel);
        return channel;
    }

    /**
     * Opens a client's UDP socket on its channel's loop, connected to {@code remote}, then the QUIC connection
     * and its stream; the channel is told at each step ({@link QuicSocketChannel#connected}).
     */
    void openClient(QuicSocketChannel channel, InetSocketAddress remote) {
        QuicSettings settings = channel.settings();
        ChannelHandler codec;
        try {
            QuicSslContext tlsContext = QuicTls.client(settings.clientTls, settings.pin);
            // the engine knows the host the URI named: a CA's certificate is checked against it (SNI too)
            codec = settings.configure(new QuicClientCodecBuilder(), false)
                    .sslEngineProvider(q -> tlsContext.newEngine(q.alloc(), remote.getHostString(), remote.getPort())).build();
        } catch (RuntimeException e) {
            channel.connectFailed(e);
            return;
        }
        Bootstrap b = new Bootstrap().group(channel.eventLoop()).channel(io.datagramChannelClass())
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(codec, new UdpErrors(channel));
                    }
                });
        io.configure(b);
        ChannelFuture socket = b.connect(remote, channel.bindAddress());
        sockets.add(socket.channel());
        channel.socketOpened(socket.channel());
        socket.addListener(f -> {
            if (!f.isSuccess()) {
                channel.connectFailed(f.cause());
                return;
            }
            QuicChannel.newBootstrap(socket.channel())
                    .attr(QuicSocketChannel.OWNER, channel)
                    .option(QuicChannelOption.SEGMENTED_DATAGRAM_PACKET_ALLOCATOR, io.segmentedAllocator(settings.gsoSegments))
                    .handler(new ConnectionEvents())
                    .streamHandler(new IncomingStreams(null))
                    .remoteAddress(remote)
                    .connect()
                    .addListener(q -> {
                        if (!q.isSuccess()) {
                            channel.connectFailed(q.cause());
                            return;
                        }
                        QuicChannel quic = (QuicChannel) q.getNow();
                        connections.add(quic);
                        channel.connectionOpened(quic);
                        quic.createStream(QuicStreamType.BIDIRECTIONAL, new StreamRelay(channel)).addListener(s -> {
                            if (s.isSuccess()) {
                                channel.connected(socket.channel(), (QuicStreamChannel) s.getNow());
                            } else {
                                channel.connectFailed(s.cause());
                            }
                        });
                    });
        });
    }

    // ------------------------------------------------------------------ listener

    @Override
    public ChannelFuture listen(InetSocketAddress local, ChannelHandler childHandler, ChannelOptions options) {
        QuicSettings settings = QuicSettings.of(options);
        QuicServerChannel server = newListener(settings);
        // the user's handler is added inside an initializer: one that cannot be added (not @Sharable, say) closes
        // that connection only, where ServerBootstrap's own acceptor would leave it unregistered and open
        return new ServerBootstrap().group(group, group).channelFactory(() -> server).childHandler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(childHandler);
            }
        }).bind(local);
    }

    private QuicServerChannel newListener(QuicSettings settings) {
        QuicServerChannel server = new QuicServerChannel(this, settings);
        track(server);
        return server;
    }

    /** Binds a listener's UDP socket with the QUIC server codec, on the listener's loop. */
    void bindListener(QuicServerChannel server, InetSocketAddress local, ChannelPromise promise) {
        QuicSettings settings = server.settings();
        ChannelHandler codec;
        try {
            codec = settings.configure(new QuicServerCodecBuilder(), true)
                    .sslContext(tls.server(settings.serverTls))
                    .tokenHandler(null) // no Retry round trip (RFC 9000 section 8.1); quiche still limits what an unvalidated address gets
                    .option(QuicChannelOption.SEGMENTED_DATAGRAM_PACKET_ALLOCATOR, io.segmentedAllocator(settings.gsoSegments))
                    .handler(new ChannelInitializer<QuicChannel>() {
                        @Override
                        protected void initChannel(QuicChannel quic) {
                            quic.pipeline().addLast(new ConnectionEvents());
                            connections.add(quic);
                            server.connectionOpened(quic);
                        }
                    })
                    .streamHandler(new IncomingStreams(server))
                    .build();
        } catch (RuntimeException e) {
            promise.tryFailure(e);
            server.close();
            return;
        }
        Bootstrap b = new Bootstrap().group(server.eventLoop()).channel(io.datagramChannelClass()).handler(codec);
        io.configure(b);
        ChannelFuture bound = b.bind(local);
        sockets.add(bound.channel());
        bound.addListener(f -> server.eventLoop().execute(() -> server.socketBound(bound, promise)));
    }

    // ------------------------------------------------------------------ bootstraps

    /**
     * Ferry's QUIC channels for Netty's bootstraps, on this transport's loops ({@link HomeLoopGroup}, which
     * keeps each accepted connection on its listener's loop). {@code options} apply to every client, listener
     * and accepted connection.
     */
    @Override
    public Bootstrapping bootstrapping(ChannelOptions options) {
        QuicSettings settings = QuicSettings.of(options);
        ChannelFactory<QuicSocketChannel> clients = () -> newClient(settings);
        ChannelFactory<QuicServerChannel> listeners = () -> newListener(settings);
        return new Bootstrapping(group, clients, listeners);
    }

    // ------------------------------------------------------------------ the rest of Transport

    void track(Channel channel) {
        channels.add(channel);
    }

    /**
     * Keeps a connection that ended cleanly open for {@code millis}, or until the peer closes it, then closes it
     * saying this end has the peer's whole stream: this end's last receipt may still need sending again.
     */
    void drain(QuicChannel quic, long millis) {
        draining.add(quic);
        quic.eventLoop().schedule(() -> quic.close(true, NO_ERROR, Unpooled.EMPTY_BUFFER), millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public TransportStatistics statistics(Channel channel) {
        if (FerryChannels.transportOf(channel) != this) {
            throw new IllegalArgumentException("channel " + channel + " belongs to another transport");
        }
        if (channel instanceof QuicSocketChannel quic) {
            return quic.statistics();
        }
        return QuicStatistics.empty(io.name());
    }

    @Override
    public ChannelFuture abort(Channel channel) {
        if (channel instanceof QuicSocketChannel quic) {
            return quic.abort();
        }
        return channel.close();
    }

    /**
     * Closes every channel gracefully, waiting for each to deliver what it holds within its LINGER, gives the
     * connections that ended cleanly a moment for the peer's close, then closes every socket and thread.
     *
     * @throws io.ferry.transport.DataLossException if a connection had to be closed with bytes unconfirmed
     */
    @Override
    public void close() {
        List<UndeliveredDataException> losses = LingeringChannels.closeAll(channels,
                ch -> ch instanceof QuicSocketChannel q ? q.config().getLinger() : Duration.ZERO);
        draining.newCloseFuture().awaitUninterruptibly(2, TimeUnit.SECONDS);
        draining.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        // what is left waits for a peer's end of stream (FIN-WAIT) or was never a channel's: tell each peer
        for (Channel c : connections) {
            QuicChannel quic = (QuicChannel) c;
            quic.eventLoop().execute(() -> {
                QuicSocketChannel owner = quic.attr(QuicSocketChannel.OWNER).get();
                quic.close(true, owner != null && owner.hasPeersEnd() ? NO_ERROR : GONE, Unpooled.EMPTY_BUFFER);
            });
        }
        connections.newCloseFuture().awaitUninterruptibly(2, TimeUnit.SECONDS);
        sockets.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        LingeringChannels.report(losses);
    }

    @Override
    public String toString() {
        return "quic/" + io.name();
    }
}
