package io.ferry.flight;

import io.ferry.grpc.FerryGrpc;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.ferry.transport.TransportUri;
import io.grpc.netty.NettyServerBuilder;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightGrpcUtils;
import org.apache.arrow.flight.FlightProducer;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;

import java.util.function.Consumer;

/**
 * Apache Arrow Flight servers and clients over a Ferry transport chosen by URI. Flight runs on grpc-netty;
 * the server is Flight's own {@link FlightServer}, whose gRPC builder takes the transport's channel factory
 * and event loops through Flight's {@code grpc.builderConsumer} hint, and the client is Flight's own
 * {@link FlightClient} over a {@link FerryGrpc} channel.
 *
 * <pre>{@code
 * try (Transports ferry = Transports.create(); BufferAllocator allocator = new RootAllocator()) {
 *     FlightServer server = FerryFlight.serverBuilder(ferry, "utp://0.0.0.0:9400", allocator, producer).build().start();
 *     try (FlightClient client = FerryFlight.client(ferry, "utp://server:9400", allocator)) {
 *         FlightStream stream = client.getStream(new Ticket(bytes));
 *     }
 *     server.shutdown();   // before ferry.close(): the loops are the transport's
 * }
 * }</pre>
 */
public final class FerryFlight {

    /** Flight's name for its hook into the server's {@code NettyServerBuilder}. */
    static final String BUILDER_CONSUMER = "grpc.builderConsumer";

    private FerryFlight() {
    }

    /**
     * A Flight server builder listening on a Ferry URI such as {@code utp://0.0.0.0:9400} (port 0: any free port).
     *
     * @throws IllegalStateException if Arrow's memory cannot work in this JVM (it needs
     *                               {@code --add-opens=java.base/java.nio=ALL-UNNAMED} on JDK 17 and later)
     */
    public static FlightServer.Builder serverBuilder(Transports ferry, String uri, BufferAllocator allocator,
                                                     FlightProducer producer) {
        return serverBuilder(ferry, uri, allocator, producer, ChannelOptions.empty());
    }

    /**
     * As {@link #serverBuilder(Transports, String, BufferAllocator, FlightProducer)}, with transport options for
     * every accepted connection. An application that sets {@code grpc.builderConsumer} itself replaces this one.
     */
    public static FlightServer.Builder serverBuilder(Transports ferry, String uri, BufferAllocator allocator,
                                                     FlightProducer producer, ChannelOptions options) {
        ArrowMemoryAccess.require();
        TransportUri local = TransportUri.parse(uri, true);
        ferry.bootstrapping(local.scheme(), local.withStreams(options)); // a wrong scheme or option fails here, not at build()
        Consumer<NettyServerBuilder> onFerry = builder -> FerryGrpc.onTransport(builder, ferry, uri, options);
        return FlightServer.builder(allocator, Location.forGrpcInsecure(local.host(), local.port()), producer)
                .transportHint(BUILDER_CONSUMER, onFerry);
    }

    /** A Flight client for the server at a Ferry URI such as {@code utp://host:9400}; closing it closes its channel. */
    public static FlightClient client(Transports ferry, String uri, BufferAllocator allocator) {
        return client(ferry, uri, allocator, ChannelOptions.empty());
    }

    /** As {@link #client(Transports, String, BufferAllocator)}, with transport options for its connections. */
    public static FlightClient client(Transports ferry, String uri, BufferAllocator allocator, ChannelOptions options) {
        ArrowMemoryAccess.require();
        return FlightGrpcUtils.createFlightClient(allocator, FerryGrpc.channelBuilder(ferry, uri, options)
                .usePlaintext()
                .maxInboundMessageSize(Integer.MAX_VALUE) // as FlightClient.Builder: record batches are large
                .build());
    }
}
