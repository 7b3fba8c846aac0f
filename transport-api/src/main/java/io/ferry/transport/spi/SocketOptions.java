package io.ferry.transport.spi;

import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ServerSocketChannelConfig;
import io.netty.channel.socket.SocketChannelConfig;

/**
 * Routes Netty's socket {@link ChannelOption}s ({@code SO_RCVBUF}, {@code TCP_NODELAY}, ...) to the
 * typed setters and getters of a {@link SocketChannelConfig} or {@link ServerSocketChannelConfig}, as
 * Netty's own socket configs do, so that a Ferry channel configured through a bootstrap's
 * {@code option(...)} behaves as its typed setters say. Each transport's config decides in those setters
 * what an option means for it (mapped, or accepted with no effect, documented per transport).
 */
public final class SocketOptions {

    /**
     * Sets a socket option through the config's typed setter (an NIO option of the same name as one of
     * them too); a kernel TCP knob ({@link HabitualOptions}) is taken with no effect; false for anything else.
     */
    public static <T> boolean set(SocketChannelConfig config, ChannelOption<T> given, T value) {
        ChannelOption<T> option = HabitualOptions.canonical(given, SOCKET);
        if (option == ChannelOption.SO_RCVBUF) {
            config.setReceiveBufferSize((Integer) value);
        } else if (option == ChannelOption.SO_SNDBUF) {
            config.setSendBufferSize((Integer) value);
        } else if (option == ChannelOption.TCP_NODELAY) {
            config.setTcpNoDelay((Boolean) value);
        } else if (option == ChannelOption.SO_KEEPALIVE) {
            config.setKeepAlive((Boolean) value);
        } else if (option == ChannelOption.SO_REUSEADDR) {
            config.setReuseAddress((Boolean) value);
        } else if (option == ChannelOption.SO_LINGER) {
            config.setSoLinger((Integer) value);
        } else if (option == ChannelOption.IP_TOS) {
            config.setTrafficClass((Integer) value);
        } else if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            config.setAllowHalfClosure((Boolean) value);
        } else {
            return HabitualOptions.isKernelTcpKnob(option); // taken with no effect, as the transport documents
        }
        return true;
    }

    /** Reads a socket option through the config's typed getter; null if {@code option} is none of them. */
    @SuppressWarnings("unchecked")
    public static <T> T get(SocketChannelConfig config, ChannelOption<T> given) {
        ChannelOption<T> option = HabitualOptions.canonical(given, SOCKET);
        Object value;
        if (option == ChannelOption.SO_RCVBUF) {
            value = config.getReceiveBufferSize();
        } else if (option == ChannelOption.SO_SNDBUF) {
            value = config.getSendBufferSize();
        } else if (option == ChannelOption.TCP_NODELAY) {
            value = config.isTcpNoDelay();
        } else if (option == ChannelOption.SO_KEEPALIVE) {
            value = config.isKeepAlive();
        } else if (option == ChannelOption.SO_REUSEADDR) {
            value = config.isReuseAddress();
        } else if (option == ChannelOption.SO_LINGER) {
            value = config.getSoLinger();
        } else if (option == ChannelOption.IP_TOS) {
            value = config.getTrafficClass();
        } else if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            value = config.isAllowHalfClosure();
        } else {
            return null;
        }
        return (T) value;
    }

    /** The socket options {@link #set(SocketChannelConfig, ChannelOption, Object)} routes. */
    public static final ChannelOption<?>[] SOCKET = {ChannelOption.SO_RCVBUF, ChannelOption.SO_SNDBUF, ChannelOption.TCP_NODELAY,
            ChannelOption.SO_KEEPALIVE, ChannelOption.SO_REUSEADDR, ChannelOption.SO_LINGER, ChannelOption.IP_TOS,
            ChannelOption.ALLOW_HALF_CLOSURE};

    private SocketOptions() {
    }
}
