package io.ferry.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;

import java.net.InetSocketAddress;
import java.util.Set;

/**
 * One transport (TCP, UDT, uTP, ...) as seen by {@link Transports}. Implementations come from a
 * {@link TransportProvider} found with {@link java.util.ServiceLoader}; applications normally use
 * {@link Transports} and never call this interface directly.
 *
 * <p>Every channel a transport creates is a Netty {@link Channel} with ordered, reliable byte-stream
 * semantics: writes of {@link io.netty.buffer.ByteBuf}, reads of {@code ByteBuf}, writability
 * events for backpressure, {@link io.netty.channel.ChannelOption#AUTO_READ}, and half-close through
 * {@link io.netty.channel.socket.DuplexChannel#shutdownOutput()} when
 * {@link io.netty.channel.ChannelOption#ALLOW_HALF_CLOSURE} is set. A transport marks each channel it
 * creates (client, listener and accepted child) so that {@link FerryChannels} can find it again.
 *
 * <p>A transport owns its threads and native resources; {@link #close()} releases them in bounded time.
 */
public interface Transport extends AutoCloseable {

    /** The transport's canonical name, such as {@code tcp}. */
    String name();

    /**
     * The options this transport honours, for connections and listeners alike. Any other option
     * given to {@link #connect} or {@link #listen} makes them throw {@link UnsupportedOptionException}.
     */
    Set<ChannelOption<?>> supportedOptions();

    /**
     * Opens a client connection.
     *
     * @param remote  the peer's address; when {@link Transports} could not resolve the host it is
     *                unresolved, and the transport must fail the returned future with an
     *                {@link java.net.UnknownHostException} naming the host
     * @param handler the user's handler, usually a {@link io.netty.channel.ChannelInitializer}
     * @param options the connection's options
     * @return a future completed when the connection is established (or has failed)
     * @throws UnsupportedOptionException if an option cannot be honoured
     */
    ChannelFuture connect(InetSocketAddress remote, ChannelHandler handler, ChannelOptions options);

    /**
     * Opens a listener; every accepted connection gets {@code childHandler} and the same options.
     *
     * @return a future completed when the listener is bound; its channel's {@code localAddress()}
     *         tells the port when 0 was asked for
     * @throws UnsupportedOptionException if an option cannot be honoured
     */
    ChannelFuture listen(InetSocketAddress local, ChannelHandler childHandler, ChannelOptions options);

    /**
     * The event loops and channel factories for Netty's own {@code Bootstrap}/{@code ServerBootstrap}, the
     * path engines take. The channels they make carry {@code options} (validated as {@link #connect}
     * validates them); options set through the bootstrap's {@code option(...)}/{@code childOption(...)}
     * are Netty's contract: socket options engines set by habit are mapped or have no effect, as each
     * transport documents.
     *
     * @throws UnsupportedOperationException if this transport does not serve Netty's bootstraps
     * @throws UnsupportedOptionException if an option cannot be honoured
     */
    default Bootstrapping bootstrapping(ChannelOptions options) {
        throw new UnsupportedOperationException("the " + name() + " transport does not serve Netty's bootstraps; use Transports.connect/listen");
    }

    /**
     * A snapshot of a channel's statistics. Safe to call from any thread.
     *
     * @throws IllegalArgumentException if the channel was not created by this transport
     */
    TransportStatistics statistics(Channel channel);

    /**
     * Closes a connection abortively: queued data is discarded and the peer is told the connection
     * was reset (TCP: RST through {@code SO_LINGER=0}; uTP: ST_RESET).
     */
    ChannelFuture abort(Channel channel);

    /**
     * For a layer ({@link LayerProvider}): the losses of its carrier's connections that
     * its own channels' losses already report, so that {@link Transports#close()} names each loss once.
     */
    default java.util.Set<UndeliveredDataException> carrierLossesReported() {
        return java.util.Set.of();
    }

    /**
     * Closes every channel of this transport and releases its threads, waiting a bounded time: each
     * connection still open, or still closing, may take up to its {@link FerryChannelOption#LINGER} to
     * deliver what was written to it.
     *
     * @throws DataLossException if a connection had to be reset with bytes unacknowledged (thrown after
     *         everything is closed)
     */
    @Override
    void close();
}
