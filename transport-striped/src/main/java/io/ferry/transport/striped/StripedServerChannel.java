package io.ferry.transport.striped;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.spi.AbstractHostingServerChannel;
import io.ferry.transport.spi.ListenerConfig;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A striped listener made by Netty's {@code ServerBootstrap} (see {@link StripedTransport#bootstrapping}):
 * the underlying transport's listener takes the member connections, and each striped connection they
 * make up waits here, as an accepted socket waits in a kernel's backlog, until the bootstrap's acceptor
 * takes it: all of them with auto-read on, one per {@code read()} with it off.
 */
public final class StripedServerChannel extends AbstractHostingServerChannel<StripedChannel> {

    private final StripedTransport transport;
    private final ChannelOptions options;
    /**
     * Options set through {@code ServerBootstrap.option(...)} that belong to the members' listener (uTP's
     * admission limits, say): kept until the bind, which gives them to it as {@code bootstrapping(...)}'s
     * options are given.
     */
    private final Map<ChannelOption<?>, Object> memberListenerOptions = new ConcurrentHashMap<>();
    private final ListenerConfig config = new ListenerConfig(this) {
        @Override
        public <T> boolean setOption(ChannelOption<T> option, T value) {
            if (super.setOption(option, value)) {
                return true;
            }
            if (!transport.isMemberListenerOption(option)) {
                return false;
            }
            validate(option, value);
            if (inner() != null) {
                throw new IllegalStateException(option.name() + " is set on a striped listener before it is bound");
            }
            memberListenerOptions.put(option, value);
            return true;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T getOption(ChannelOption<T> option) {
            if (transport.isMemberListenerOption(option)) {
                Object set = memberListenerOptions.get(option);
                return set != null ? (T) set : options.get(option).orElse(null);
            }
            return super.getOption(option);
        }
    };

    StripedServerChannel(StripedTransport transport, ChannelOptions options) {
        super(StripedChannel::resetUnclaimed);
        this.transport = transport;
        this.options = options;
        attr(FerryChannels.TRANSPORT).set(transport);
    }

    /** The underlying transport's listener that takes the member connections; null before the bind completes. */
    public Channel memberListener() {
        return inner();
    }

    /** A striped connection whose members all arrived (any thread): it waits for the acceptor. */
    void add(StripedChannel child) {
        accepted(child);
    }

    /** The member listener's bind ended (this channel's loop). */
    void membersBound(ChannelFuture bound, ChannelPromise promise) {
        innerBound(bound, promise);
    }

    @Override
    public ListenerConfig config() {
        return config;
    }

    @Override
    protected String kind() {
        return "a striped listener";
    }

    @Override
    protected void bindInner(InetSocketAddress local, ChannelPromise promise) {
        ChannelOptions.Builder merged = options.toBuilder();
        memberListenerOptions.forEach((option, value) -> set(merged, option, value));
        transport.bindListener(this, local, merged.build(), promise);
    }

    @SuppressWarnings("unchecked")
    private static <T> void set(ChannelOptions.Builder b, ChannelOption<T> option, Object value) {
        b.set(option, (T) value);
    }

    @Override
    protected void closeInner(Channel boundOrNull, boolean bindStarted) {
        if (boundOrNull != null) {
            boundOrNull.close();
        }
    }
}
