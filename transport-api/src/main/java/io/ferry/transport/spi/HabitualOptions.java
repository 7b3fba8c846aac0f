package io.ferry.transport.spi;

import io.netty.channel.ChannelOption;

import java.util.Set;

/**
 * Kernel TCP tunings that engines set through Netty's bootstraps by habit, whatever the transport:
 * Cassandra's {@code EpollChannelOption.TCP_USER_TIMEOUT} and {@code TCP_KEEPIDLE}, Elasticsearch's
 * keep-alive options through {@code NioChannelOption}, Netty's native {@code SO_REUSEPORT},
 * {@code TCP_QUICKACK}, {@code TCP_FASTOPEN}. A transport that is not a kernel TCP socket has no such knob
 * (it finds a dead peer with its own timers, and acknowledges as its protocol says), so its configs take
 * these with no effect and read them back as unset ({@code null}), rather than answering false and having
 * Netty log "Unknown channel option" for every connection. Recognised by name, so that a transport module
 * needs none of Netty's native-transport classes: a native option's name is its class and field
 * ({@code io.netty.channel.epoll.EpollChannelOption#TCP_KEEPIDLE}), an NIO one's the JDK option's.
 */
public final class HabitualOptions {

    /** The kernel knobs, by their field or JDK name. */
    private static final Set<String> KERNEL_TCP = Set.of(
            "TCP_USER_TIMEOUT", "TCP_KEEPIDLE", "TCP_KEEPINTVL", "TCP_KEEPCNT",
            "TCP_KEEPINTERVAL", "TCP_KEEPCOUNT", // jdk.net.ExtendedSocketOptions' names
            "TCP_QUICKACK", "TCP_CORK", "TCP_NOTSENT_LOWAT", "TCP_FASTOPEN", "TCP_FASTOPEN_CONNECT",
            "TCP_DEFER_ACCEPT", "TCP_MD5SIG", "SO_REUSEPORT", "SO_BUSY_POLL", "IP_FREEBIND", "IP_TRANSPARENT",
            "IP_BIND_ADDRESS_NO_PORT", "EPOLL_MODE", "SO_INCOMING_CPU");

    /** The packages of Netty's native transports, whose options are named after their class. */
    private static final Set<String> NATIVE_PACKAGES = Set.of(
            "io.netty.channel.epoll", "io.netty.channel.kqueue", "io.netty.channel.uring", "io.netty.channel.unix");

    private HabitualOptions() {
    }

    /** Whether {@code option} is one of the kernel TCP knobs a transport without a kernel socket ignores. */
    public static boolean isKernelTcpKnob(ChannelOption<?> option) {
        String name = option.name();
        int hash = name.lastIndexOf('#');
        if (hash < 0) {
            return KERNEL_TCP.contains(name); // an NIO option carries the JDK option's name
        }
        int dot = name.lastIndexOf('.', hash);
        return dot > 0 && NATIVE_PACKAGES.contains(name.substring(0, dot)) && KERNEL_TCP.contains(name.substring(hash + 1));
    }

    /**
     * The option of {@link ChannelOption}'s own with the same name as {@code option}, or {@code option}
     * itself: {@code NioChannelOption.of(StandardSocketOptions.TCP_NODELAY)} is named {@code TCP_NODELAY} but
     * is another object than {@link ChannelOption#TCP_NODELAY}, and means the same.
     */
    @SuppressWarnings("unchecked")
    static <T> ChannelOption<T> canonical(ChannelOption<T> option, ChannelOption<?>[] known) {
        for (ChannelOption<?> k : known) {
            if (k != option && k.name().equals(option.name()) && option.getClass() != ChannelOption.class) {
                return (ChannelOption<T>) k;
            }
        }
        return option;
    }
}
