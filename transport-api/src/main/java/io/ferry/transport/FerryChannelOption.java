package io.ferry.transport;

import io.netty.channel.ChannelOption;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Channel options that every Ferry transport understands, in the style of Netty's own
 * {@code EpollChannelOption}. Each transport declares which of them it honours (see
 * {@link Transport#supportedOptions()}); giving a transport an option it cannot honour is an error,
 * never silently ignored.
 *
 * <p>Values are checked when they are put into {@link ChannelOptions}: a negative buffer size, an
 * empty congestion-control name or a zero timeout is rejected with a message naming the option.
 *
 * @param <T> the option's value type
 */
public final class FerryChannelOption<T> extends ChannelOption<T> {

    /** Send buffer of the transport, in bytes (for TCP: {@code SO_SNDBUF}). */
    public static final FerryChannelOption<Integer> SEND_BUFFER_SIZE =
            new FerryChannelOption<>("SEND_BUFFER_SIZE", Integer.class, v -> requirePositive("SEND_BUFFER_SIZE", v));

    /** Receive buffer of the transport, in bytes (for TCP: {@code SO_RCVBUF}). */
    public static final FerryChannelOption<Integer> RECEIVE_BUFFER_SIZE =
            new FerryChannelOption<>("RECEIVE_BUFFER_SIZE", Integer.class, v -> requirePositive("RECEIVE_BUFFER_SIZE", v));

    /**
     * Largest payload the transport puts in one packet, in bytes (for TCP: {@code TCP_MAXSEG};
     * for datagram transports: the payload per UDP datagram). Bounded to [64, 65507].
     */
    public static final FerryChannelOption<Integer> PACKET_SIZE =
            new FerryChannelOption<>("PACKET_SIZE", Integer.class, v -> requireRange("PACKET_SIZE", v, 64, 65_507));

    /** Name of the congestion-control algorithm for this connection (for TCP: {@code TCP_CONGESTION}). */
    public static final FerryChannelOption<String> CONGESTION_CONTROL =
            new FerryChannelOption<>("CONGESTION_CONTROL", String.class, FerryChannelOption::requireName);

    /** Upper bound of the sending rate, in bytes per second (for TCP: {@code SO_MAX_PACING_RATE}). */
    public static final FerryChannelOption<Long> PACING_RATE =
            new FerryChannelOption<>("PACING_RATE", Long.class, v -> {
                if (v <= 0) {
                    throw new IllegalArgumentException("PACING_RATE must be a positive number of bytes per second, got " + v);
                }
            });

    /** How long a client connect may take before it fails with {@link io.netty.channel.ConnectTimeoutException}. */
    public static final FerryChannelOption<Duration> CONNECT_TIMEOUT =
            new FerryChannelOption<>("CONNECT_TIMEOUT", Duration.class, v -> {
                if (v.isZero() || v.isNegative() || v.toMillis() > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException(
                            "CONNECT_TIMEOUT must be positive and at most " + Integer.MAX_VALUE + " ms, got " + v);
                }
            });

    /**
     * How long a graceful {@code close()} of a connection waits for the peer to acknowledge every byte
     * written before it and the end of stream (the meaning of TCP's {@code SO_LINGER}, kept by a user-space
     * transport after the socket is closed). The close future succeeds once everything is acknowledged;
     * when the linger runs out, or the peer resets or vanishes first, the connection is reset and the
     * close future fails with {@link UndeliveredDataException} naming the bytes that were not
     * acknowledged. Zero closes abortively at once, like {@code SO_LINGER=0}. Default
     * {@link #DEFAULT_LINGER}; at most 65535 s.
     */
    public static final FerryChannelOption<Duration> LINGER =
            new FerryChannelOption<>("LINGER", Duration.class, v -> {
                if (v.isNegative() || v.getSeconds() > 65_535) {
                    throw new IllegalArgumentException("LINGER must be between 0 and 65535 seconds, got " + v);
                }
            });

    /**
     * How many member connections carry one striped channel, 1 to 64 (see {@code io.ferry.transport.striped.StripedChannel}, in {@code io.ferry:transport-striped}):
     * the application gets one ordinary channel whose bytes travel over that many connections of the
     * transport, as FDT and GridFTP stripe a transfer. Both ends must ask for it: a listener with this
     * option accepts striped sessions of any size (the client's value decides), and only them. The
     * same as {@code ?streams=N} on the URI.
     */
    public static final FerryChannelOption<Integer> STREAMS =
            new FerryChannelOption<>("STREAMS", Integer.class, v -> {
                if (v < 1 || v > 64) {
                    throw new IllegalArgumentException("STREAMS must be between 1 and 64 connections, got " + v);
                }
            });

    /**
     * Connections opened with the same value share one connection of the transport where it carries several
     * streams in one (QUIC): one handshake and one congestion controller for all of them, each connection a
     * stream of its own. The striped layer sets it on its members, so {@code quic://host:port?streams=4} is
     * four streams of one QUIC connection; transports that cannot share do not support it. Not blank.
     */
    public static final FerryChannelOption<String> SHARED_CONNECTION =
            new FerryChannelOption<>("SHARED_CONNECTION", String.class, v -> {
                if (v.isBlank()) {
                    throw new IllegalArgumentException("SHARED_CONNECTION must name a group, got a blank string");
                }
            });

    /** The {@link #LINGER} of a connection that was not given one. */
    public static final Duration DEFAULT_LINGER = Duration.ofSeconds(30);

    private static final List<FerryChannelOption<?>> ALL = List.of(
            SEND_BUFFER_SIZE, RECEIVE_BUFFER_SIZE, PACKET_SIZE, CONGESTION_CONTROL, PACING_RATE, CONNECT_TIMEOUT, LINGER, STREAMS);

    private final String simpleName;
    private final Class<T> valueType;
    private final Consumer<T> check;

    @SuppressWarnings("deprecation") // the protected constructor is how Netty itself defines typed option families
    private FerryChannelOption(String simpleName, Class<T> valueType, Consumer<T> check) {
        super("ferry." + simpleName);
        this.simpleName = simpleName;
        this.valueType = valueType;
        this.check = check;
    }

    /** The option's short name, such as {@code SEND_BUFFER_SIZE}. */
    public String simpleName() {
        return simpleName;
    }

    /** The Java type of the option's value. */
    public Class<T> valueType() {
        return valueType;
    }

    @Override
    public void validate(T value) {
        super.validate(value);
        if (!valueType.isInstance(value)) {
            throw new IllegalArgumentException(simpleName + " takes a " + valueType.getSimpleName()
                    + ", got a " + value.getClass().getSimpleName());
        }
        check.accept(value);
    }

    /** Every Ferry option, in declaration order. */
    public static List<FerryChannelOption<?>> all() {
        return ALL;
    }

    /** Finds an option by its short name, ignoring case ({@code send_buffer_size} finds {@link #SEND_BUFFER_SIZE}). */
    public static Optional<FerryChannelOption<?>> byName(String name) {
        String wanted = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        return ALL.stream().filter(o -> o.simpleName.equals(wanted)).findFirst();
    }

    private static void requirePositive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be a positive number of bytes, got " + value);
        }
    }

    private static void requireRange(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be between " + min + " and " + max + " bytes, got " + value);
        }
    }

    private static void requireName(String value) {
        Objects.requireNonNull(value, "CONGESTION_CONTROL");
        if (value.isBlank() || !value.chars().allMatch(c -> c > ' ' && c < 127)) {
            throw new IllegalArgumentException("CONGESTION_CONTROL must be a non-empty ASCII name, got '" + value + "'");
        }
    }
}
