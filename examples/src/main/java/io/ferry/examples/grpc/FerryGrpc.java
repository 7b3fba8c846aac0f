package io.ferry.examples.grpc;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.TransportUri;
import io.ferry.transport.Transports;
import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * grpc-java on its Netty transport, over a Ferry transport chosen by URI: how an application adopts
 * Ferry without touching its RPC layer. The only Ferry-specific lines are these two factories; the
 * services, stubs, interceptors and deadlines are plain gRPC.
 *
 * <pre>{@code
 * try (Transports ferry = Transports.create();
 *      FerryGrpc.ServerHandle server = FerryGrpc.server(ferry, "utp://0.0.0.0:9300", new EchoService());
 *      FerryGrpc.ClientHandle client = FerryGrpc.client(ferry, "utp://10.0.0.2:9300")) {
 *     String reply = EchoService.echo(client.channel(), "hello");
 * }
 * }</pre>
 *
 * <p>How: grpc-netty builds its connections with a Netty {@code Bootstrap}/{@code ServerBootstrap}
 * from a channel factory and an event-loop group. Here the client's channel factory returns a channel
 * Ferry is connecting, the server's returns a {@link FerryListenerChannel} that hands each connection a
 * Ferry listener accepts to the bootstrap, and the group ({@link AdoptingEventLoop}) lets those
 * channels stay on the Ferry transport's event loops. No bytes are copied between channels: gRPC's
 * HTTP/2 codec runs in the Ferry channel's pipeline. Plaintext HTTP/2 (prior knowledge); add an
 * {@code SslHandler} the same way for TLS.
 */
public final class FerryGrpc {

    private FerryGrpc() {
    }

    /** A gRPC client channel over Ferry, with the loop it needs; close it when done. */
    public static final class ClientHandle implements AutoCloseable {
        private final ManagedChannel channel;
        private final EventLoopGroup loop;

        private ClientHandle(ManagedChannel channel, EventLoopGroup loop) {
            this.channel = channel;
            this.loop = loop;
        }

        /** The gRPC channel: use it with any stub. */
        public ManagedChannel channel() {
            return channel;
        }

        @Override
        public void close() throws InterruptedException {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }

    /** A gRPC server listening on a Ferry transport; close it when done. */
    public static final class ServerHandle implements AutoCloseable {
        private final Server server;
        private final EventLoopGroup boss;
        private final EventLoopGroup workers;
        private final java.util.List<FerryListenerChannel> listeners;

        private ServerHandle(Server server, EventLoopGroup boss, EventLoopGroup workers, java.util.List<FerryListenerChannel> listeners) {
            this.server = server;
            this.listeners = listeners;
            this.boss = boss;
            this.workers = workers;
        }

        /** The port the Ferry listener is bound to (useful with port 0). */
        public int port() {
            return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
        }

        /** The open connections the server accepted: Ferry channels ({@code FerryChannels.transportOf} names their transport). */
        public java.util.List<io.netty.channel.Channel> connections() {
            return listeners.stream().flatMap(l -> l.accepted().stream()).toList();
        }

        @Override
        public void close() throws InterruptedException {
            server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }

    /** A client for the gRPC server at a Ferry URI such as {@code utp://host:9300}. */
    public static ClientHandle client(Transports ferry, String uri) {
        return client(ferry, uri, ChannelOptions.empty());
    }

    /** As {@link #client(Transports, String)}, with transport options. */
    public static ClientHandle client(Transports ferry, String uri, ChannelOptions options) {
        TransportUri target = TransportUri.parse(uri, false);
        ferry.transport(target.scheme()); // an unknown scheme fails here, naming the installed ones
        AdoptingEventLoop loop = new AdoptingEventLoop();
        ManagedChannel channel = NettyChannelBuilder.forAddress(target.unresolvedAddress())
                .channelFactory(new FerryClientChannelFactory(ferry, uri, options))
                .eventLoopGroup(loop)
                .usePlaintext()
                .build();
        return new ClientHandle(channel, loop);
    }

    /** A server for {@code services} listening on a Ferry URI such as {@code utp://0.0.0.0:9300}. */
    public static ServerHandle server(Transports ferry, String uri, BindableService... services) throws IOException {
        return server(ferry, uri, ChannelOptions.empty(), services);
    }

    /** As {@link #server(Transports, String, BindableService...)}, with transport options. */
    public static ServerHandle server(Transports ferry, String uri, ChannelOptions options, BindableService... services) throws IOException {
        TransportUri local = TransportUri.parse(uri, true);
        ferry.transport(local.scheme());
        EventLoopGroup boss = new DefaultEventLoopGroup(1, new io.netty.util.concurrent.DefaultThreadFactory("ferry-grpc-boss", true));
        AdoptingEventLoop workers = new AdoptingEventLoop();
        java.util.List<FerryListenerChannel> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(local.host(), local.port()))
                .channelFactory(() -> {
                    FerryListenerChannel listener = new FerryListenerChannel(ferry, local.scheme(), options);
                    listeners.add(listener);
                    return listener;
                })
                .bossEventLoopGroup(boss)
                .workerEventLoopGroup(workers);
        for (BindableService service : services) {
            builder.addService(service);
        }
        try {
            return new ServerHandle(builder.build().start(), boss, workers, listeners);
        } catch (IOException | RuntimeException e) {
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }
}
