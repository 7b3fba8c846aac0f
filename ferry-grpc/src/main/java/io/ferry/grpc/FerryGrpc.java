package io.ferry.grpc;

import io.ferry.transport.Bootstrapping;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.TransportUri;
import io.ferry.transport.Transports;
import io.ferry.transport.striped.StripedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;

import java.net.InetSocketAddress;

/**
 * grpc-java's Netty builders over a Ferry transport chosen by URI. grpc-netty builds its connections
 * with Netty's bootstraps from a channel factory and an event-loop group; these builders start with the
 * transport's ({@link Transports#bootstrapping}), so gRPC's HTTP/2 runs in the pipeline of a Ferry
 * channel, with nothing copied between channels. Everything else (services, stubs, TLS, deadlines,
 * keep-alive) is configured on the builder as usual.
 *
 * <pre>{@code
 * try (Transports ferry = Transports.create()) {
 *     Server server = FerryGrpc.serverBuilder(ferry, "utp://0.0.0.0:9300").addService(service).build().start();
 *     ManagedChannel channel = FerryGrpc.channelBuilder(ferry, "utp://server:9300").usePlaintext().build();
 *     ...
 *     channel.shutdown(); server.shutdown();   // before ferry.close(): the loops are the transport's
 * }
 * }</pre>
 *
 * <p>The event loops belong to the transport: gRPC does not shut down loops it was given, and
 * {@link Transports#close()} does. A striped URI ({@code ?streams=N}) carries each HTTP/2 connection over
 * N connections of the transport, and both builders start its HTTP/2 streams with a larger flow-control
 * window ({@link #STRIPED_FLOW_CONTROL_WINDOW}); a window set on the builder afterwards replaces it.
 */
public final class FerryGrpc {

    /**
     * grpc-netty's flow-control window tuning stops at 8 MiB; that is enough for one connection, whose
     * unread bytes are those in flight. A striped stream also holds bytes that arrived out of order and
     * wait for a slower member (up to {@link StripedChannel#REORDER_LIMIT}), and HTTP/2 counts them as
     * unread, so a striped URI's streams start with room for both. Measured in bench/README.md (Arrow
     * Flight DoPut, 200 Mbit/s, 150 ms: striped x4 0.81x plain grpc-netty with the tuned window, 1.20x with this).
     */
    public static final int STRIPED_FLOW_CONTROL_WINDOW = (8 << 20) + (int) StripedChannel.REORDER_LIMIT;

    private FerryGrpc() {
    }

    /** A server builder listening on a Ferry URI such as {@code utp://0.0.0.0:9300} (port 0: any free port). */
    public static NettyServerBuilder serverBuilder(Transports ferry, String uri) {
        return serverBuilder(ferry, uri, ChannelOptions.empty());
    }

    /** As {@link #serverBuilder(Transports, String)}, with transport options for every accepted connection. */
    public static NettyServerBuilder serverBuilder(Transports ferry, String uri, ChannelOptions options) {
        TransportUri local = TransportUri.parse(uri, true);
        return onTransport(NettyServerBuilder.forAddress(new InetSocketAddress(local.host(), local.port())), ferry, local, options);
    }

    /**
     * Puts a server builder that a framework made (Arrow Flight's, say) on the transport of {@code uri}: its
     * channel factory and event loops. The builder keeps the address it was made for; the URI's scheme and
     * {@code options} choose the transport.
     */
    public static NettyServerBuilder onTransport(NettyServerBuilder builder, Transports ferry, String uri, ChannelOptions options) {
        return onTransport(builder, ferry, TransportUri.parse(uri, true), options);
    }

    private static NettyServerBuilder onTransport(NettyServerBuilder builder, Transports ferry, TransportUri local,
                                                  ChannelOptions options) {
        ChannelOptions withStreams = local.withStreams(options);
        Bootstrapping parts = ferry.bootstrapping(local.scheme(), withStreams);
        if (striped(withStreams)) {
            builder.initialFlowControlWindow(STRIPED_FLOW_CONTROL_WINDOW);
        }
        return builder.channelFactory(parts.serverChannelFactory())
                .bossEventLoopGroup(parts.group())
                .workerEventLoopGroup(parts.group());
    }

    /** A channel builder for the gRPC server at a Ferry URI such as {@code utp://host:9300}. */
    public static NettyChannelBuilder channelBuilder(Transports ferry, String uri) {
        return channelBuilder(ferry, uri, ChannelOptions.empty());
    }

    /** As {@link #channelBuilder(Transports, String)}, with transport options for its connections. */
    public static NettyChannelBuilder channelBuilder(Transports ferry, String uri, ChannelOptions options) {
        TransportUri target = TransportUri.parse(uri, false);
        ChannelOptions withStreams = target.withStreams(options);
        Bootstrapping parts = ferry.bootstrapping(target.scheme(), withStreams);
        NettyChannelBuilder builder = NettyChannelBuilder.forAddress(target.host(), target.port());
        if (striped(withStreams)) {
            builder.initialFlowControlWindow(STRIPED_FLOW_CONTROL_WINDOW);
        }
        return builder.channelFactory(parts.channelFactory())
                .eventLoopGroup(parts.group());
    }

    /** Whether connections made with {@code options} stripe over more than one connection. */
    static boolean striped(ChannelOptions options) {
        return options.get(FerryChannelOption.STREAMS).orElse(1) > 1;
    }
}
