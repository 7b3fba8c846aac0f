package io.ferry.transport.udt;

import io.ferry.transport.spi.StreamChannelConfig;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;

import java.util.Map;

/**
 * A UDT channel's configuration: Netty's options and {@link io.ferry.transport.FerryChannelOption#LINGER}
 * as every Ferry stream has them ({@link StreamChannelConfig}), plus {@link UdtChannelOption}s, which read
 * back what the connection uses (buffers in whole packets of MSS − 28 bytes, the receive buffer clamped
 * to the flow window, as UDT4 keeps them). They decide how the connection is made, so they are given to
 * {@code connect}/{@code listen}; only {@link UdtChannelOption#MAX_BANDWIDTH} changes a live connection.
 */
public final class UdtChannelConfig extends StreamChannelConfig {

    private final UdtChannelHolder holder;
    private final UdtSettings settings;
    private volatile long maxBandwidth;

    /** Reaches the channel's connection from the config (it is made before the connection). */
    interface UdtChannelHolder {
        io.ferry.transport.udt.proto.core.UdtConnection connection();

        java.net.InetSocketAddress localAddress();
    }

    UdtChannelConfig(UdtSocketChannel channel, UdtSettings settings, Runnable autoReadCleared) {
        super(channel, () -> settings.receiveBufferPackets() * settings.bufferUnit(),
                () -> settings.sendBufferPackets() * settings.bufferUnit(), autoReadCleared);
        this.holder = new UdtChannelHolder() {
            @Override
            public io.ferry.transport.udt.proto.core.UdtConnection connection() {
                return channel.connection();
            }

            @Override
            public java.net.InetSocketAddress localAddress() {
                return channel.localAddress();
            }
        };
        this.settings = settings;
        this.maxBandwidth = settings.maxBandwidth;
        setLinger(settings.linger);
        if (settings.isMessageMode()) {
            setRecvByteBufAllocator(new FixedRecvByteBufAllocator(settings.maxMessageSize));
        }
    }

    /** The ceiling of the sending rate, bytes per second, or −1 for none. */
    long maxBandwidth() {
        return maxBandwidth;
    }

    UdtSettings settings() {
        return settings;
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), UdtChannelOption.UDT_SEND_BUFFER, UdtChannelOption.UDT_RECEIVE_BUFFER,
                UdtChannelOption.UDP_SEND_BUFFER, UdtChannelOption.UDP_RECEIVE_BUFFER, UdtChannelOption.MSS,
                UdtChannelOption.FLOW_WINDOW, UdtChannelOption.MAX_BANDWIDTH, UdtChannelOption.MESSAGE_MODE,
                UdtChannelOption.MAX_MESSAGE_SIZE, UdtChannelOption.RAW_STREAM, UdtChannelOption.RENDEZVOUS);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option instanceof UdtChannelOption) {
            return (T) value(option);
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        if (!(option instanceof UdtChannelOption)) {
            return super.setOption(option, value);
        }
        validate(option, value);
        if (option == UdtChannelOption.MAX_BANDWIDTH) {
            long v = (Long) value;
            if (v == 0 || v < -1) {
                throw new IllegalArgumentException("MAX_BANDWIDTH must be a positive number of bytes per second or -1 for none, got " + v);
            }
            maxBandwidth = v;
            var c = holder.connection();
            if (c != null) {
                c.setMaxBandwidth(v);
            }
            return true;
        }
        if (value != null && value.equals(value(option))) {
            return true; // what the connection was made with already
        }
        throw new IllegalArgumentException("UDT option " + option.name()
                + " decides how the connection is made; pass it to connect or listen");
    }

    private Object value(ChannelOption<?> option) {
        if (option == UdtChannelOption.UDT_SEND_BUFFER) {
            return settings.sendBufferPackets() * settings.bufferUnit();
        } else if (option == UdtChannelOption.UDT_RECEIVE_BUFFER) {
            return settings.receiveBufferPackets() * settings.bufferUnit();
        } else if (option == UdtChannelOption.UDP_SEND_BUFFER) {
            return settings.udpSendBuffer;
        } else if (option == UdtChannelOption.UDP_RECEIVE_BUFFER) {
            return settings.udpReceiveBuffer;
        } else if (option == UdtChannelOption.MSS) {
            var c = holder.connection();
            return c != null && c.payloadBytes() > 0 ? Math.min(settings.mss, c.negotiatedMss()) : settings.mss;
        } else if (option == UdtChannelOption.FLOW_WINDOW) {
            return settings.flowWindow;
        } else if (option == UdtChannelOption.MAX_BANDWIDTH) {
            return maxBandwidth;
        } else if (option == UdtChannelOption.RENDEZVOUS) {
            return settings.rendezvous;
        } else if (option == UdtChannelOption.MESSAGE_MODE) {
            return settings.isMessageMode();
        } else if (option == UdtChannelOption.RAW_STREAM) {
            return settings.mode == UdtSettings.StreamMode.RAW;
        } else if (option == UdtChannelOption.MAX_MESSAGE_SIZE) {
            return settings.maxMessageSize;
        } else if (option == UdtChannelOption.BIND_ADDRESS) {
            java.net.InetSocketAddress local = holder.localAddress();
            return local != null ? local : settings.bindAddress;
        }
        throw new IllegalArgumentException("unknown UDT option " + option.name());
    }
}
