package io.ferry.transport.hosted;

import io.ferry.transport.Bootstrapping;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;

import java.util.Objects;

/**
 * Channel factories for an engine that registers channels on event loops of its own and cannot take the
 * transport's group ({@link Bootstrapping#group()}): Vert.x, whose contexts are bound to the loops it
 * created, is the case in point. Each {@link HostedSocketChannel} and {@link HostedServerChannel} registers
 * on any loop; the Ferry connection or listener it carries lives on the transport's loops, and bytes,
 * events and writability cross between the two, one read batch or one flush at a time.
 *
 * <pre>{@code
 * Bootstrapping utp = ferry.bootstrapping("utp");
 * new Bootstrap().group(anyGroup).channelFactory(HostedChannels.clients(utp)).handler(h).connect(host, port);
 * new ServerBootstrap().group(anyBoss, anyWorkers).channelFactory(HostedChannels.listeners(utp))...
 * }</pre>
 *
 * An engine that does take the transport's group should use {@link Bootstrapping} directly: it saves the
 * crossing.
 */
public final class HostedChannels {

    /** Client connections over {@code carrier}, for any event loop. */
    public static ChannelFactory<HostedSocketChannel> clients(Bootstrapping carrier) {
        Objects.requireNonNull(carrier, "carrier");
        return () -> new HostedSocketChannel(carrier);
    }

    /** Listeners over {@code carrier}, for any event loops (their connections too). */
    public static ChannelFactory<HostedServerChannel> listeners(Bootstrapping carrier) {
        Objects.requireNonNull(carrier, "carrier");
        return () -> new HostedServerChannel(carrier);
    }

    /** The Ferry channel {@code channel} carries if it is hosted, else {@code channel} itself. */
    public static Channel carried(Channel channel) {
        if (channel instanceof HostedSocketChannel) {
            return ((HostedSocketChannel) channel).carried();
        }
        if (channel instanceof HostedServerChannel) {
            return ((HostedServerChannel) channel).carried();
        }
        return channel;
    }

    private HostedChannels() {
    }
}
