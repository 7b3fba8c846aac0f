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

    /**
     * The most the receive buffer grows to while a fast flow fills it and the application keeps up
     * (default 32 MiB; {@link io.ferry.transport.FerryChannelOption#RECEIVE_BUFFER_SIZE} alone fixes the
     * size instead). See {@link io.ferry.transport.ledbat.core.UtpConfig} for how it grows.
     */
    public static final UtpChannelOption<Integer> RECEIVE_BUFFER_MAX = new UtpChannelOption<>("RECEIVE_BUFFER_MAX");

    /**
     * The most the send buffer grows to as the congestion window grows (default 32 MiB;
     * {@link io.ferry.transport.FerryChannelOption#SEND_BUFFER_SIZE} alone fixes the size instead).
     */
    public static final UtpChannelOption<Integer> SEND_BUFFER_MAX = new UtpChannelOption<>("SEND_BUFFER_MAX");

    /** Consecutive retransmission timeouts after which the connection gives up. */
    public static final UtpChannelOption<Integer> MAX_RETRANSMITS = new UtpChannelOption<>("MAX_RETRANSMITS");

    /**
     * Listener: connections accepted whose initiator has not yet proven its address (acknowledged the
     * answer to its SYN) at most; further SYNs are dropped unanswered until some complete or expire
     * (after the connect timeout). Bounds what a flood of spoofed SYNs can hold. Default 1024.
     */
    public static final UtpChannelOption<Integer> MAX_HALF_OPEN = new UtpChannelOption<>("MAX_HALF_OPEN");

    /** Listener: established connections at most; a SYN beyond it is refused with a RESET. Default 16384. */
    public static final UtpChannelOption<Integer> MAX_CONNECTIONS = new UtpChannelOption<>("MAX_CONNECTIONS");

    /**
     * Listener: connections (half-open and established) from one IP address at most; a SYN beyond it
     * is refused with a RESET. Default 4096: sized for the clients behind one NAT gateway or L4 proxy and for
     * connection pools (a striped channel's members count one each), while a flood of spoofed SYNs is
     * bounded by {@link #MAX_HALF_OPEN} and one address still cannot take all of {@link #MAX_CONNECTIONS}.
     */
    public static final UtpChannelOption<Integer> MAX_CONNECTIONS_PER_ADDRESS = new UtpChannelOption<>("MAX_CONNECTIONS_PER_ADDRESS");

    /**
     * Listener: RESETs per second each of its sockets sends at most, in answer to packets for
     * connections it does not have and to refused SYNs; the rest go unanswered. Default 200.
     */
    public static final UtpChannelOption<Integer> RESET_RATE = new UtpChannelOption<>("RESET_RATE");

    @SuppressWarnings("deprecation") // how Netty itself defines typed option families
    private UtpChannelOption(String name) {
        super("utp." + name);
    }
}
