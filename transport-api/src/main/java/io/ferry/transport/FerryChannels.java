package io.ferry.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.AttributeKey;

import java.util.Objects;

/**
 * Operations on any channel created by a Ferry transport, whatever the transport: statistics,
 * half-close and abortive close.
 */
public final class FerryChannels {

    /** The attribute through which every Ferry channel knows its transport. Set by transports, read here. */
    public static final AttributeKey<Transport> TRANSPORT = AttributeKey.valueOf(FerryChannels.class, "transport");

    private FerryChannels() {
    }

    /**
     * The transport that created a channel.
     *
     * @throws IllegalArgumentException if the channel was not created by a Ferry transport
     */
    public static Transport transportOf(Channel channel) {
        Objects.requireNonNull(channel, "channel");
        Transport transport = channel.attr(TRANSPORT).get();
        if (transport == null) {
            throw new IllegalArgumentException("channel " + channel + " was not created by a Ferry transport");
        }
        return transport;
    }

    /** A statistics snapshot of a channel; safe from any thread. */
    public static TransportStatistics statistics(Channel channel) {
        return transportOf(channel).statistics(channel);
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
        return transportOf(channel).abort(channel);
    }
}
