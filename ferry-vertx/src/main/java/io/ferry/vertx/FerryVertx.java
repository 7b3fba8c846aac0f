package io.ferry.vertx;

import io.ferry.transport.Bootstrapping;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.TransportUri;
import io.ferry.transport.Transports;
import io.ferry.transport.hosted.HostedChannels;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.vertx.core.transport.Transport;

import java.util.Objects;

/**
 * Vert.x 5 over a Ferry transport: a {@link Transport} for {@code Vertx.builder().withTransport(...)}, after
 * which every {@code NetServer}, {@code NetClient}, {@code HttpServer} and {@code HttpClient} of that Vert.x
 * instance runs over the transport named — {@code tcp}, {@code utp}, {@code udt}, or any of them striped
 * ({@code utp?streams=2}).
 *
 * <pre>{@code
 * try (Transports ferry = Transports.create()) {
 *     Vertx vertx = Vertx.builder().withTransport(FerryVertx.transport(ferry, "utp")).build();
 *     vertx.createHttpServer().requestHandler(req -> req.response().end("hi")).listen(8080);
 *     ...
 *     vertx.close().await();   // before ferry.close()
 * }
 * }</pre>
 *
 * Vert.x binds each connection to the event loop of the context that handles it, loops it creates itself;
 * Ferry's connections live on their transport's loops (a uTP connection on its UDP socket's). So each
 * Vert.x connection is a {@link io.ferry.transport.hosted.HostedSocketChannel} on Vert.x's loop carrying
 * a Ferry connection, and bytes cross between the two loops a read batch or a flush at a time. Vert.x's own
 * loops are NIO; its datagram sockets (DNS, {@code DatagramSocket}) stay plain UDP.
 */
public final class FerryVertx {

    private FerryVertx() {
    }

    /** A Vert.x transport over {@code spec}: a Ferry scheme, with {@code ?streams=N} for striped connections. */
    public static Transport transport(Transports ferry, String spec) {
        return transport(ferry, spec, ChannelOptions.empty());
    }

    /**
     * As {@link #transport(Transports, String)}, with transport options (congestion control, buffers, linger,
     * ...) for every connection and listener, validated here as {@code Transports.connect} validates them.
     * Vert.x's own socket options ({@code NetClientOptions.setTcpNoDelay}, {@code setReceiveBufferSize}, ...)
     * reach the Ferry connection too, each with the meaning its transport documents.
     */
    public static Transport transport(Transports ferry, String spec, ChannelOptions options) {
        Objects.requireNonNull(ferry, "ferry");
        Objects.requireNonNull(options, "options");
        TransportUri uri = TransportUri.parse(Objects.requireNonNull(spec, "spec").contains("://") ? spec
                : spec.replaceFirst("^([a-z0-9]+)", "$1://0.0.0.0:0"), true);
        Bootstrapping carrier = ferry.bootstrapping(uri.scheme(), uri.withStreams(options));
        String name = "ferry-" + spec;
        Implementation implementation = new Implementation(carrier);
        return new Transport() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public boolean available() {
                return true;
            }

            @Override
            public Throwable unavailabilityCause() {
                return null;
            }

            @Override
            public io.vertx.core.spi.transport.Transport implementation() {
                return implementation;
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    /** Vert.x's transport SPI: NIO loops for Vert.x, hosted Ferry channels for its connections and listeners. */
    private static final class Implementation implements io.vertx.core.spi.transport.Transport {

        private final ChannelFactory<? extends Channel> clients;
        private final ChannelFactory<? extends ServerChannel> listeners;

        Implementation(Bootstrapping carrier) {
            this.clients = HostedChannels.clients(carrier);
            this.listeners = HostedChannels.listeners(carrier);
        }

        @Override
        public IoHandlerFactory ioHandlerFactory() {
            return NioIoHandler.newFactory();
        }

        @Override
        public DatagramChannel datagramChannel() {
            return new NioDatagramChannel();
        }

        @Override
        @SuppressWarnings("deprecation")
        public DatagramChannel datagramChannel(InternetProtocolFamily family) {
            return new NioDatagramChannel(family);
        }

        @Override
        public ChannelFactory<? extends Channel> channelFactory(boolean domainSocket) {
            refuseDomainSockets(domainSocket);
            return clients;
        }

        @Override
        public ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
            refuseDomainSockets(domainSocket);
            return listeners;
        }

        private static void refuseDomainSockets(boolean domainSocket) {
            if (domainSocket) {
                throw new IllegalArgumentException("a Ferry transport carries IP connections; a domain socket "
                        + "address needs Vert.x's own transport");
            }
        }
    }
}
