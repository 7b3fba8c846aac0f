package io.ferry.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.DefaultMessageSizeEstimator;
import io.netty.channel.FileRegion;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.AttributeKey;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Operations on any channel created by a Ferry transport, whatever the transport: statistics,
 * half-close and abortive close.
 */
public final class FerryChannels {

    /** The attribute through which every Ferry channel knows its transport. Set by transports, read here. */
    public static final AttributeKey<Transport> TRANSPORT = AttributeKey.valueOf(FerryChannels.class, "transport");

    /**
     * On a striped listener, the {@link FerryChannelOption#STREAMS} it was made with, which its clients must
     * give too ({@link #uri} puts it in the URI). Set by the striped transport, read here.
     */
    public static final AttributeKey<Integer> STRIPED_STREAMS = AttributeKey.valueOf(FerryChannels.class, "stripedStreams");

    /**
     * Counts a {@link FileRegion} by the bytes it has left to send, where Netty's default estimator counts it
     * as nothing, so that regions take part in a channel's writability (backpressure) as buffers do; counts
     * anything else as the default does. For a channel written file regions:
     * {@code ch.config().setMessageSizeEstimator(FerryChannels.FILE_REGIONS_COUNTED)}.
     */
    public static final MessageSizeEstimator FILE_REGIONS_COUNTED = () -> msg -> msg instanceof FileRegion region
            ? (int) Math.min(Integer.MAX_VALUE, region.count() - region.transferred())
            : DefaultMessageSizeEstimator.DEFAULT.newHandle().size(msg);

    private FerryChannels() {
    }

    /**
     * Whether {@code channel} is a kernel TCP socket (Netty's epoll or NIO socket channel, say), to which a
     * {@link io.netty.channel.FileRegion} goes with {@code sendfile}; false for Ferry's user-space
     * connections ({@link io.ferry.transport.spi.UserSpaceStream}), which are {@code SocketChannel}s too.
     */
    public static boolean isKernelSocket(Channel channel) {
        return channel instanceof io.netty.channel.socket.SocketChannel && !(channel instanceof io.ferry.transport.spi.UserSpaceStream);
    }

    /**
     * The transport that created a channel.
     *
     * @throws IllegalArgumentException if the channel was not created by a Ferry transport
     */
    public static Transport transportOf(Channel channel) {
        Objects.requireNonNull(channel, "channel");
        channel = io.ferry.transport.hosted.HostedChannels.carried(channel);
        Transport transport = channel.attr(TRANSPORT).get();
        if (transport == null && channel.parent() != null) {
            transport = channel.parent().attr(TRANSPORT).get(); // accepted by a listener of that transport
        }
        if (transport == null) {
            throw new IllegalArgumentException("channel " + channel + " was not created by a Ferry transport");
        }
        return transport;
    }

    /**
     * The URI a client connects to for this listener (or the local end of a connection), such as
     * {@code tcp://127.0.0.1:43017}: the port it was bound to, which is what a listener on port 0 needs.
     * A wildcard bind address ({@code 0.0.0.0}, {@code ::}) is given as the loopback address, the one a
     * client on this machine can always use. A striped listener's URI ends in the {@code ?streams=N} it was
     * made with, without which a client is refused ("not striped"): the URI round-trips.
     *
     * @throws IllegalArgumentException if the channel was not created by a Ferry transport or is not bound
     */
    public static String uri(Channel channel) {
        Transport transport = transportOf(channel);
        if (!(channel.localAddress() instanceof InetSocketAddress)) {
            throw new IllegalArgumentException("channel " + channel + " is not bound to an IP address");
        }
        InetSocketAddress local = (InetSocketAddress) channel.localAddress();
        InetAddress address = local.getAddress();
        if (address == null || address.isAnyLocalAddress()) {
            address = address instanceof Inet6Address ? loopback6() : loopback4();
        }
        String host = address instanceof Inet6Address ? "[" + address.getHostAddress() + "]" : address.getHostAddress();
        Integer streams = channel.hasAttr(STRIPED_STREAMS) ? channel.attr(STRIPED_STREAMS).get() : null;
        return transport.name() + "://" + host + ":" + local.getPort() + (streams != null ? "?streams=" + streams : "");
    }

    private static InetAddress loopback6() {
        return literal(new byte[]{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
    }

    private static InetAddress loopback4() {
        return literal(new byte[]{127, 0, 0, 1});
    }

    private static InetAddress literal(byte[] address) {
        try {
            return InetAddress.getByAddress(address);
        } catch (java.net.UnknownHostException cannotHappen) { // only for a wrong length
            throw new IllegalStateException(cannotHappen);
        }
    }

    /** A statistics snapshot of a channel; safe from any thread. */
    public static TransportStatistics statistics(Channel channel) {
        Channel carried = io.ferry.transport.hosted.HostedChannels.carried(channel);
        return transportOf(carried).statistics(carried);
    }

    /**
     * Half-closes a connection: no more data will be sent, the peer reads end-of-stream, and this side
     * can still read what the peer sends. Needs {@link io.netty.channel.ChannelOption#ALLOW_HALF_CLOSURE}
     * on the peer for it to keep its side open.
     *
     * @throws IllegalArgumentException if the channel is not a connection (a listener, say)
     */
    public static ChannelFuture shutdownOutput(Channel channel) {
        transportOf(channel);
        if (!(channel instanceof DuplexChannel)) {
            throw new IllegalArgumentException("channel " + channel + " is not a connection and cannot be half-closed");
        }
        return ((DuplexChannel) channel).shutdownOutput();
    }

    /** Closes a connection abortively (the peer sees a reset); see {@link Transport#abort(Channel)}. */
    public static ChannelFuture abort(Channel channel) {
        Channel carried = io.ferry.transport.hosted.HostedChannels.carried(channel);
        return transportOf(carried).abort(carried);
    }
}
