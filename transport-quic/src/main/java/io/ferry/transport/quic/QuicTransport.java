package io.ferry.transport.quic;

import io.ferry.transport.udp.UdpIo;
import io.ferry.transport.Bootstrapping;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.Transport;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.spi.ChildHandlers;
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
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.ArrayList;
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
    /** The application protocol (ALPN) both ends name in QUIC's handshake; a user's TLS context must offer it. */
    public static final String APPLICATION_PROTOCOL = "ferry/1";

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
    private final SharedConnections shared = new SharedConnections();

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
        EventLoop home = settings.sharedConnection == null ? null : shared.loop(settings.sharedConnection, group::next);
        QuicSocketChannel channel = new QuicSocketChannel(this, settings, home);
        settings.applyTo(channel);
        if (settings.connectTimeout != null) {
            channel.config().setConnectTimeoutMillis((int) settings.connectTimeout.toMillis());
        }
        channel.attr(FerryChannels.TRANSPORT).set(this);
        track(channel);
        return channel;
    }

    /**
     * Connects a client: its stream opens on the QUIC connection it shares with its group's other channels
     * ({@link io.ferry.transport.FerryChannelOption#SHARED_CONNECTION}), dialed by the first of them, or on a
     * connection of its own; the channel is told at each step ({@link QuicSocketChannel#connected}).
     */
    void openClient(QuicSocketChannel channel, InetSocketAddress remote) {
        String group = channel.settings().sharedConnection;
        Future<QuicConnection> connection = group == null ? dial(channel, remote)
                : shared.connection(group, () -> dial(channel, remote));
        connection.addListener(f -> {
            if (!f.isSuccess()) {
                channel.connectFailed(f.cause());
                return;
            }
            if (!channel.isOpen()) {
                return; // closed while the group's first channel dialed: no stream to hold the connection open
            }
            QuicConnection c = (QuicConnection) f.getNow();
            c.quic().createStream(QuicStreamType.BIDIRECTIONAL, new StreamRelay(channel)).addListener(s -> {
                if (s.isSuccess()) {
                    channel.connected(c, (QuicStreamChannel) s.getNow());
                } else {
                    channel.connectFailed(s.cause());
                }
            });
        });
    }

    /**
     * Opens a UDP socket on {@code channel}'s loop, connected to {@code remote}, and a QUIC connection over it;
     * the socket and the connection close with {@code channel} while it dials.
     */
    private Future<QuicConnection> dial(QuicSocketChannel channel, InetSocketAddress remote) {
        Promise<QuicConnection> dialed = channel.eventLoop().newPromise();
        QuicSettings settings = channel.settings();
        ChannelHandler codec;
        try {
            QuicSslContext tlsContext = QuicTls.client(settings.clientTls, settings.pin);
            // the engine knows the host the URI named: a CA's certificate is checked against it (SNI too)
            codec = settings.configure(new QuicClientCodecBuilder(), false)
                    .sslEngineProvider(q -> tlsContext.newEngine(q.alloc(), remote.getHostString(), remote.getPort())).build();
        } catch (RuntimeException e) {
            return dialed.setFailure(e);
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
        socket.channel().closeFuture().addListener(f -> dialed.tryFailure(new ClosedChannelException()));
        socket.addListener(f -> {
            if (!f.isSuccess()) {
                dialed.tryFailure(f.cause());
                return;
            }
            if (remote.equals(socket.channel().localAddress())) {
                // the kernel gave the socket the very port it dials (one a listener just freed): the Initial
                // would reach only itself and wait out the connect timeout; nothing else can hold that port
                dialed.tryFailure(new java.net.ConnectException("Connection refused: nothing listens for QUIC at "
                        + remote + " (the client's own socket was given that address)"));
                socket.channel().close();
                return;
            }
            QuicChannel.newBootstrap(socket.channel())
                    .option(QuicChannelOption.SEGMENTED_DATAGRAM_PACKET_ALLOCATOR, io.segmentedAllocator(settings.gsoSegments))
                    .handler(new ConnectionEvents())
                    .streamHandler(new IncomingStreams(null))
                    .remoteAddress(remote)
                    .connect()
                    .addListener(q -> {
                        if (!q.isSuccess()) {
                            dialed.tryFailure(q.cause());
                            return;
                        }
                        QuicChannel quic = (QuicChannel) q.getNow();
                        connections.add(quic);
                        QuicConnection connection = new QuicConnection(this, quic, socket.channel());
                        channel.connectionOpened(quic);
                        if (!dialed.trySuccess(connection)) {
                            connection.close(ABORTED);
                        }
                    });
        });
        return dialed;
    }

    // ------------------------------------------------------------------ listener

    @Override
    public ChannelFuture listen(InetSocketAddress local, ChannelHandler childHandler, ChannelOptions options) {
        QuicSettings settings = QuicSettings.of(options);
        QuicServerChannel server = newListener(options, settings);
        // the user's handler is added inside an initializer: one that cannot be added (not @Sharable, say) closes
        // that connection only, where ServerBootstrap's own acceptor would leave it unregistered and open
        return new ServerBootstrap().group(group, group).channelFactory(() -> server).childHandler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ChildHandlers.addLast(ch, childHandler);
            }
        }).bind(local);
    }

    private QuicServerChannel newListener(ChannelOptions options, QuicSettings settings) {
        QuicServerChannel server = new QuicServerChannel(this, options, settings);
        track(server);
        return server;
    }

    /**
     * Binds a listener's UDP sockets, each with a QUIC server codec of its own: one on the listener's loop and,
     * where the sockets are epoll's, one more on each other loop of this transport, bound to the same port with
     * {@code SO_REUSEPORT}. The kernel hands each peer's datagrams (by address and port) always to the same
     * socket, so a connection lives on that socket's loop and the listener's connections spread over every loop.
     */
    void bindListener(QuicServerChannel server, InetSocketAddress local, ChannelPromise promise) {
        bindListener(server, local, promise, UdpIo.PORT_CLAIM_ATTEMPTS);
    }

    /**
     * {@link #bindListener}, where sockets share the port: a plain bind proves the address free first
     * ({@link UdpIo#claimFreeAddress}), as uTP's and UDT's listeners do, for {@code SO_REUSEPORT} lets a
     * second process of the same user join the group, and a second receiver on the same port then took
     * half of the first one's connections.
     */
    private void bindListener(QuicServerChannel server, InetSocketAddress requested, ChannelPromise promise, int attempts) {
        ChannelFuture first;
        InetSocketAddress local = requested;
        try {
            if (io.reusesPorts()) {
                local = UdpIo.claimFreeAddress(requested, "QUIC");
            }
            first = bindListenerSocket(server, server.eventLoop(), local);
        } catch (java.io.IOException | RuntimeException e) {
            promise.tryFailure(e);
            server.close();
            return;
        }
        boolean mayRetry = io.reusesPorts() && requested.getPort() == 0 && attempts > 1;
        first.addListener(f -> {
            if (!f.isSuccess() && mayRetry && UdpIo.isAddressTaken(f.cause())) {
                // another socket took the port 0 picked between the claim and the bind
                sockets.remove(first.channel());
                server.eventLoop().execute(() -> bindListener(server, requested, promise, attempts - 1));
                return;
            }
            List<ChannelFuture> more = new ArrayList<>();
            if (f.isSuccess() && io.reusesPorts()) {
                InetSocketAddress bound = (InetSocketAddress) first.channel().localAddress();
                for (io.netty.util.concurrent.EventExecutor loop : group) {
                    if (loop != server.eventLoop()) {
                        more.add(bindListenerSocket(server, (EventLoop) loop, bound));
                    }
                }
            }
            if (more.isEmpty()) {
                server.socketsBound(first, more, promise); // on the listener's loop: the first socket's
                return;
            }
            java.util.concurrent.atomic.AtomicInteger pending = new java.util.concurrent.atomic.AtomicInteger(more.size());
            for (ChannelFuture m : more) {
                m.addListener(done -> {
                    if (pending.decrementAndGet() == 0) {
                        server.eventLoop().execute(() -> server.socketsBound(first, more, promise));
                    }
                });
            }
        });
    }

    private ChannelFuture bindListenerSocket(QuicServerChannel server, EventLoop loop, InetSocketAddress local) {
        QuicSettings settings = server.settings();
        ChannelHandler codec = settings.configure(new QuicServerCodecBuilder(), true)
                .sslContext(tls.server(settings.serverTls))
                .tokenHandler(null) // no Retry round trip (RFC 9000 section 8.1); quiche still limits what an unvalidated address gets
                .option(QuicChannelOption.SEGMENTED_DATAGRAM_PACKET_ALLOCATOR, io.segmentedAllocator(settings.gsoSegments))
                .handler(new ChannelInitializer<QuicChannel>() {
                    @Override
                    protected void initChannel(QuicChannel quic) {
                        quic.pipeline().addLast(new ConnectionEvents());
                        connections.add(quic);
                        new QuicConnection(QuicTransport.this, quic, null);
                        server.connectionOpened(quic);
                    }
                })
                .streamHandler(new IncomingStreams(server))
                .build();
        Bootstrap b = new Bootstrap().group(loop).channel(io.datagramChannelClass()).handler(codec);
        io.configureListener(b);
        ChannelFuture bound = b.bind(local);
        sockets.add(bound.channel());
        return bound;
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
        ChannelFactory<QuicServerChannel> listeners = () -> newListener(options, settings);
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
                QuicConnection connection = QuicConnection.of(quic);
                quic.close(true, connection != null && connection.allHavePeersEnd() ? NO_ERROR : GONE, Unpooled.EMPTY_BUFFER);
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
