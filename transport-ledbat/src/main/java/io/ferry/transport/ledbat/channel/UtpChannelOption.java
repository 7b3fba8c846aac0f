package io.ferry.transport.ledbat.channel;

import io.netty.channel.ChannelOption;

import java.time.Duration;

/**
 * Options only the uTP transport has, in addition to the shared
 * {@link io.ferry.transport.FerryChannelOption}s it honours.
 *
 * @param <T> the option's value type
 */
public final class UtpChannelOption<T> extends ChannelOption<T> {

    /** The LEDBAT controllers' target queuing delay (default 60 ms, LEDBAT++'s; at most 100 ms, RFC 6817's bound). */
    public static final UtpChannelOption<Duration> TARGET_DELAY = new UtpChannelOption<>("TARGET_DELAY");

    /** How long a connection may receive nothing before it fails (default 60 s; keep-alives prevent it on idle links). */
    public static final UtpChannelOption<Duration> IDLE_TIMEOUT = new UtpChannelOption<>("IDLE_TIMEOUT");

    /** Consecutive retransmission timeouts after which the connection gives up. */
    public static final UtpChannelOption<Integer> MAX_RETRANSMITS = new UtpChannelOption<>("MAX_RETRANSMITS");

    @SuppressWarnings("deprecation") // how Netty itself defines typed option families
    private UtpChannelOption(String name) {
        super("utp." + name);
    }
}
