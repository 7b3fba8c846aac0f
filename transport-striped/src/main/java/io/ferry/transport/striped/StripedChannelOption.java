package io.ferry.transport.striped;

import io.netty.channel.ChannelOption;

/**
 * Options of the striped layer itself, given with {@link io.ferry.transport.FerryChannelOption#STREAMS}
 * when connecting.
 */
public final class StripedChannelOption {

    /**
     * A client sends each member's hello as soon as the member is connected, without waiting for the
     * listener's greeting, and its channel is active then: the first bytes leave one round trip sooner
     * (150 ms on a 150 ms path). The greeting is still checked, ahead of the stream's first bytes; a listener
     * that is not striped then fails the <em>connected</em> channel with a {@link NotStripedException}, where
     * without this option the connect fails and the listener gets nothing. Off by default; listeners ignore it.
     */
    public static final ChannelOption<Boolean> EAGER_HELLO = ChannelOption.valueOf(StripedChannelOption.class, "EAGER_HELLO");

    private StripedChannelOption() {
    }
}
