package io.ferry.transport.ledbat.channel;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.UnsupportedOptionException;
import io.ferry.transport.ledbat.cc.CongestionControls;
import io.ferry.transport.ledbat.core.UtpConfig;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Splits a connection's {@link ChannelOptions} into the protocol settings ({@link UtpConfig}) and the
 * Netty channel options that the channel's config applies (auto-read, watermarks, half-closure, ...).
 */
final class UtpSettings {

    /** The Netty options a uTP channel's config honours. */
    static final Set<ChannelOption<?>> CHANNEL_OPTIONS = Set.of(
            ChannelOption.AUTO_READ, ChannelOption.AUTO_CLOSE, ChannelOption.ALLOW_HALF_CLOSURE,
            ChannelOption.WRITE_BUFFER_WATER_MARK, ChannelOption.ALLOCATOR, ChannelOption.MESSAGE_SIZE_ESTIMATOR,
            ChannelOption.WRITE_SPIN_COUNT, ChannelOption.MAX_MESSAGES_PER_WRITE, FerryChannelOption.LINGER);

    /** The protocol options, mapped onto {@link UtpConfig}. */
    static final Set<ChannelOption<?>> PROTOCOL_OPTIONS = Set.of(
            FerryChannelOption.SEND_BUFFER_SIZE, FerryChannelOption.RECEIVE_BUFFER_SIZE, FerryChannelOption.PACKET_SIZE,
            FerryChannelOption.CONGESTION_CONTROL, FerryChannelOption.CONNECT_TIMEOUT, ChannelOption.CONNECT_TIMEOUT_MILLIS,
            UtpChannelOption.TARGET_DELAY, UtpChannelOption.IDLE_TIMEOUT, UtpChannelOption.MAX_RETRANSMITS,
            UtpChannelOption.RECEIVE_BUFFER_MAX, UtpChannelOption.SEND_BUFFER_MAX);

    /** The options that bound what a listener admits; given to a client connection they are refused. */
    static final Set<ChannelOption<?>> LISTENER_OPTIONS = Set.of(
            UtpChannelOption.MAX_HALF_OPEN, UtpChannelOption.MAX_CONNECTIONS,
            UtpChannelOption.MAX_CONNECTIONS_PER_ADDRESS, UtpChannelOption.RESET_RATE);

    static final int DEFAULT_MAX_HALF_OPEN = 1024;
    static final int DEFAULT_MAX_CONNECTIONS = 16_384;
    static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 4096;
    static final int DEFAULT_RESET_RATE = 200;

    final UtpConfig protocol;
    final Map<ChannelOption<?>, Object> channelOptions;
    final int maxHalfOpen;
    final int maxConnections;
    final int maxConnectionsPerAddress;
    final int resetRate;

    private UtpSettings(UtpConfig protocol, Map<ChannelOption<?>, Object> channelOptions, ChannelOptions options) {
        this.protocol = protocol;
        this.channelOptions = channelOptions;
        this.maxHalfOpen = positive(options, UtpChannelOption.MAX_HALF_OPEN, DEFAULT_MAX_HALF_OPEN);
        this.maxConnections = positive(options, UtpChannelOption.MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS);
        this.maxConnectionsPerAddress = positive(options, UtpChannelOption.MAX_CONNECTIONS_PER_ADDRESS,
                DEFAULT_MAX_CONNECTIONS_PER_ADDRESS);
        this.resetRate = positive(options, UtpChannelOption.RESET_RATE, DEFAULT_RESET_RATE);
    }

    /** This listener's admission limits, to be changed until it binds. */
    ListenerLimits listenerLimits() {
        return new ListenerLimits(maxHalfOpen, maxConnections, maxConnectionsPerAddress, resetRate);
    }

    /** A listener's admission limits ({@link #LISTENER_OPTIONS}) by option; a listener's own copy. */
    static final class ListenerLimits {
        private final java.util.concurrent.ConcurrentHashMap<ChannelOption<?>, Integer> values = new java.util.concurrent.ConcurrentHashMap<>();

        ListenerLimits(int maxHalfOpen, int maxConnections, int maxConnectionsPerAddress, int resetRate) {
            values.put(UtpChannelOption.MAX_HALF_OPEN, maxHalfOpen);
            values.put(UtpChannelOption.MAX_CONNECTIONS, maxConnections);
            values.put(UtpChannelOption.MAX_CONNECTIONS_PER_ADDRESS, maxConnectionsPerAddress);
            values.put(UtpChannelOption.RESET_RATE, resetRate);
        }

        int get(ChannelOption<?> option) {
            return values.get(option);
        }

        void set(ChannelOption<?> option, int value) {
            if (value <= 0) {
                throw new UnsupportedOptionException("uTP option " + option.name() + " must be positive, got " + value);
            }
            values.put(option, value);
        }

        io.ferry.transport.ledbat.endpoint.Admission admission() {
            return new io.ferry.transport.ledbat.endpoint.Admission(get(UtpChannelOption.MAX_HALF_OPEN),
                    get(UtpChannelOption.MAX_CONNECTIONS), get(UtpChannelOption.MAX_CONNECTIONS_PER_ADDRESS));
        }
    }

    private static int positive(ChannelOptions options, UtpChannelOption<Integer> option, int fallback) {
        int value = options.get(option).orElse(fallback);
        if (value <= 0) {
            throw new UnsupportedOptionException("uTP option " + option.name() + " must be positive, got " + value);
        }
        return value;
    }

    /**
     * @throws UnsupportedOptionException for an option uTP cannot honour or a value out of range
     */
    static UtpSettings of(ChannelOptions options, ByteBufAllocator allocator) {
        UtpConfig.Builder config = UtpConfig.builder().allocator(allocator);
        Map<ChannelOption<?>, Object> channel = new LinkedHashMap<>();
        for (Map.Entry<ChannelOption<?>, Object> e : options.asMap().entrySet()) {
            ChannelOption<?> option = e.getKey();
            Object value = e.getValue();
            try {
                if (option == FerryChannelOption.SEND_BUFFER_SIZE) {
                    config.sendBufferSize((Integer) value);
                } else if (option == FerryChannelOption.RECEIVE_BUFFER_SIZE) {
                    config.receiveBufferSize((Integer) value);
                } else if (option == FerryChannelOption.PACKET_SIZE) {
                    config.packetSize((Integer) value);
                } else if (option == FerryChannelOption.CONGESTION_CONTROL) {
                    String name = (String) value;
                    if (!CongestionControls.isRegistered(name)) {
                        throw new UnsupportedOptionException("uTP congestion control '" + name + "' is not available; available: "
                                + String.join(", ", CongestionControls.names()));
                    }
                    config.congestionControl(name);
                } else if (option == FerryChannelOption.CONNECT_TIMEOUT) {
                    config.connectTimeout((Duration) value);
                } else if (option == ChannelOption.CONNECT_TIMEOUT_MILLIS) {
                    config.connectTimeout(Duration.ofMillis((Integer) value));
                } else if (option == UtpChannelOption.TARGET_DELAY) {
                    config.targetDelay((Duration) value);
                } else if (option == UtpChannelOption.IDLE_TIMEOUT) {
                    config.idleTimeout((Duration) value);
                } else if (option == UtpChannelOption.MAX_RETRANSMITS) {
                    config.maxRetransmits((Integer) value);
                } else if (option == UtpChannelOption.RECEIVE_BUFFER_MAX) {
                    config.receiveBufferMax((Integer) value);
                } else if (option == UtpChannelOption.SEND_BUFFER_MAX) {
                    config.sendBufferMax((Integer) value);
                } else if (LISTENER_OPTIONS.contains(option)) {
                    // read by the constructor; checked there
                } else if (CHANNEL_OPTIONS.contains(option)) {
                    channel.put(option, value);
                    if (option == ChannelOption.ALLOCATOR) {
                        config.allocator((ByteBufAllocator) value); // the protocol's packets come from it too
                    }
                } else {
                    throw new UnsupportedOptionException("uTP cannot honour option " + option.name());
                }
            } catch (UnsupportedOptionException unsupported) {
                throw unsupported;
            } catch (IllegalArgumentException | ClassCastException bad) {
                throw new UnsupportedOptionException("uTP option " + option.name() + "=" + value + ": " + bad.getMessage(), bad);
            }
        }
        UtpConfig protocol;
        try {
            protocol = config.build();
        } catch (IllegalArgumentException inconsistent) {
            // options valid one by one that contradict each other (a maximum below its size)
            throw new UnsupportedOptionException("uTP options: " + inconsistent.getMessage(), inconsistent);
        }
        return new UtpSettings(protocol, channel, options);
    }

    /**
     * Applies the Netty-level options to a uTP channel's config.
     *
     * @throws UnsupportedOptionException if the config refuses one
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    void applyTo(io.netty.channel.Channel channel) {
        for (Map.Entry<ChannelOption<?>, Object> e : channelOptions.entrySet()) {
            if (!channel.config().setOption((ChannelOption) e.getKey(), e.getValue())) {
                throw new UnsupportedOptionException("uTP channel does not accept option " + e.getKey().name());
            }
        }
    }
}
