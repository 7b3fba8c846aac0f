package io.ferry.transport.udt;

import io.ferry.transport.spi.SocketOptions;

import com.barchart.udt.ExceptionUDT;
import com.barchart.udt.LingerUDT;
import com.barchart.udt.OptionUDT;
import com.barchart.udt.SocketUDT;
import io.ferry.transport.FerryChannelOption;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannelConfig;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;

/**
 * A UDT channel's configuration. {@link UdtChannelOption} socket options are read from and written to
 * the native UDT socket itself, so {@code getOption} reports what UDT really uses (buffers rounded to
 * whole packets, the receive buffer clamped to the flow window). UDT accepts most of them only before
 * the socket binds or connects; later changes fail with UDT's message.
 *
 * <p>It is a {@link SocketChannelConfig} so that code written for TCP channels (and engines' bootstraps,
 * which set socket options by habit) keeps working: {@code SO_SNDBUF}/{@code SO_RCVBUF}, {@code SO_LINGER}
 * and {@code SO_REUSEADDR} are UDT's own; UDT never delays small writes and always sends keep-alives, so
 * {@code TCP_NODELAY} and {@code SO_KEEPALIVE} read true and setting them has no effect; {@code IP_TOS}
 * and performance preferences have no effect either (UDT does not expose its UDP socket). UDT takes its
 * buffers and address reuse only before the socket binds or connects: through these setters a change
 * after that has no effect (through {@link UdtChannelOption} it fails with UDT's message).
 */
public final class UdtChannelConfig extends DefaultChannelConfig implements SocketChannelConfig {

    private final SocketUDT socket;
    private final UdtSettings settings;
    private volatile Duration linger;
    private volatile boolean allowHalfClosure;
    /** The user's rate ceiling under {@code ferry}, which paces through UDT_MAXBW itself. */
    private volatile long rateCeiling;

    UdtChannelConfig(Channel channel, SocketUDT socket, UdtSettings settings) {
        super(channel);
        setMessageSizeEstimator(io.ferry.transport.FerryChannels.FILE_REGIONS_COUNTED); // a queued file region holds writability as a buffer does
        this.socket = socket;
        this.settings = settings;
        this.linger = settings.linger;
        this.rateCeiling = settings.maxBandwidth;
        if (settings.isMessageMode()) {
            // A UDT message is delivered whole only into a buffer that can hold it.
            setRecvByteBufAllocator(new FixedRecvByteBufAllocator(settings.maxMessageSize));
        }
    }

    /** How long a graceful close waits for the peer ({@link FerryChannelOption#LINGER}). */
    Duration lingerDuration() {
        return linger;
    }

    /** The ceiling of the sending rate, bytes per second, or −1 for none. */
    long rateCeiling() {
        return rateCeiling;
    }

    /** The settings the channel was created with (mode, linger). */
    UdtSettings settings() {
        return settings;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            return (T) Boolean.valueOf(allowHalfClosure);
        }
        if (option instanceof UdtChannelOption || option == FerryChannelOption.LINGER) {
            return (T) nativeValue(option);
        }
        T socketOption = SocketOptions.get(this, option);
        return socketOption != null ? socketOption : super.getOption(option);
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(getOptions(super.getOptions(), FerryChannelOption.LINGER), SocketOptions.SOCKET);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            setAllowHalfClosure((Boolean) value);
            return true;
        }
        if (option instanceof UdtChannelOption || option == FerryChannelOption.LINGER) {
            setNative(option, value);
            return true;
        }
        return SocketOptions.set(this, option, value) || super.setOption(option, value);
    }

    private Object nativeValue(ChannelOption<?> option) {
        try {
            if (option == UdtChannelOption.UDT_SEND_BUFFER) {
                return socket.getOption(OptionUDT.UDT_SNDBUF);
            } else if (option == UdtChannelOption.UDT_RECEIVE_BUFFER) {
                return socket.getOption(OptionUDT.UDT_RCVBUF);
            } else if (option == UdtChannelOption.UDP_SEND_BUFFER) {
                return socket.getOption(OptionUDT.UDP_SNDBUF);
            } else if (option == UdtChannelOption.UDP_RECEIVE_BUFFER) {
                return socket.getOption(OptionUDT.UDP_RCVBUF);
            } else if (option == UdtChannelOption.MSS) {
                return socket.getOption(OptionUDT.UDT_MSS);
            } else if (option == UdtChannelOption.FLOW_WINDOW) {
                return socket.getOption(OptionUDT.UDT_FC);
            } else if (option == UdtChannelOption.MAX_BANDWIDTH) {
                return settings.usesFerryRateControl() ? rateCeiling : socket.getOption(OptionUDT.UDT_MAXBW);
            } else if (option == FerryChannelOption.LINGER) {
                return linger;
            } else if (option == UdtChannelOption.RENDEZVOUS) {
                return socket.getOption(OptionUDT.UDT_RENDEZVOUS);
            } else if (option == UdtChannelOption.MESSAGE_MODE) {
                return settings.isMessageMode();
            } else if (option == UdtChannelOption.RAW_STREAM) {
                return settings.mode == UdtSettings.StreamMode.RAW;
            } else if (option == UdtChannelOption.MAX_MESSAGE_SIZE) {
                return settings.maxMessageSize;
            } else if (option == UdtChannelOption.BIND_ADDRESS) {
                return socket.isBound() ? socket.getLocalSocketAddress() : settings.bindAddress;
            }
        } catch (ExceptionUDT e) {
            throw new IllegalStateException("cannot read UDT option " + option.name() + ": " + e.getMessage(), e);
        }
        throw new IllegalArgumentException("unknown UDT option " + option.name());
    }

    private void setNative(ChannelOption<?> option, Object value) {
        try {
            if (option == UdtChannelOption.UDT_SEND_BUFFER) {
                socket.setOption(OptionUDT.UDT_SNDBUF, (Integer) value);
            } else if (option == UdtChannelOption.UDT_RECEIVE_BUFFER) {
                socket.setOption(OptionUDT.UDT_RCVBUF, (Integer) value);
            } else if (option == UdtChannelOption.UDP_SEND_BUFFER) {
                socket.setOption(OptionUDT.UDP_SNDBUF, (Integer) value);
            } else if (option == UdtChannelOption.UDP_RECEIVE_BUFFER) {
                socket.setOption(OptionUDT.UDP_RCVBUF, (Integer) value);
            } else if (option == UdtChannelOption.MSS) {
                socket.setOption(OptionUDT.UDT_MSS, (Integer) value);
            } else if (option == UdtChannelOption.FLOW_WINDOW) {
                socket.setOption(OptionUDT.UDT_FC, (Integer) value);
            } else if (option == UdtChannelOption.MAX_BANDWIDTH) {
                if (settings.usesFerryRateControl()) {
                    rateCeiling = (Long) value; // the rate control keeps UDT_MAXBW at or below it
                } else {
                    socket.setOption(OptionUDT.UDT_MAXBW, (Long) value);
                }
            } else if (option == FerryChannelOption.LINGER) {
                FerryChannelOption.LINGER.validate((Duration) value);
                socket.setOption(OptionUDT.UDT_LINGER, UdtSettings.nativeLinger((Duration) value));
                linger = (Duration) value;
            } else {
                throw new IllegalArgumentException("UDT option " + option.name()
                        + " decides how the channel is created; pass it to connect or listen");
            }
        } catch (ExceptionUDT e) {
            throw new IllegalStateException("UDT refused " + option.name() + "=" + value
                    + " (most UDT options can only be set before the socket binds or connects): " + e.getMessage(), e);
        }
    }

    @Override
    public boolean isAllowHalfClosure() {
        return allowHalfClosure;
    }

    @Override
    public UdtChannelConfig setAllowHalfClosure(boolean allowHalfClosure) {
        this.allowHalfClosure = allowHalfClosure;
        return this;
    }

    @Override
    @Deprecated
    public UdtChannelConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public UdtChannelConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public UdtChannelConfig setAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public UdtChannelConfig setRecvByteBufAllocator(RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public UdtChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    public UdtChannelConfig setAutoClose(boolean autoClose) {
        super.setAutoClose(autoClose);
        return this;
    }

    @Override
    public boolean isTcpNoDelay() {
        return true;
    }

    @Override
    public UdtChannelConfig setTcpNoDelay(boolean tcpNoDelay) {
        return this; // UDT has no Nagle algorithm: it sends small writes at once
    }

    @Override
    public int getSoLinger() {
        Duration l = linger;
        return (int) (l.getSeconds() + (l.getNano() > 0 ? 1 : 0));
    }

    @Override
    public UdtChannelConfig setSoLinger(int soLinger) {
        setNative(FerryChannelOption.LINGER, Duration.ofSeconds(Math.max(0, soLinger)));
        return this;
    }

    @Override
    public int getSendBufferSize() {
        return (Integer) nativeValue(UdtChannelOption.UDT_SEND_BUFFER);
    }

    /** UDT's send buffer; once the socket is bound or connected, no effect (UDT takes it only before). */
    @Override
    public UdtChannelConfig setSendBufferSize(int sendBufferSize) {
        if (!socket.isBound()) {
            setNative(UdtChannelOption.UDT_SEND_BUFFER, sendBufferSize);
        }
        return this;
    }

    @Override
    public int getReceiveBufferSize() {
        return (Integer) nativeValue(UdtChannelOption.UDT_RECEIVE_BUFFER);
    }

    /** UDT's receive buffer; once the socket is bound or connected, no effect (UDT takes it only before). */
    @Override
    public UdtChannelConfig setReceiveBufferSize(int receiveBufferSize) {
        if (!socket.isBound()) {
            setNative(UdtChannelOption.UDT_RECEIVE_BUFFER, receiveBufferSize);
        }
        return this;
    }

    @Override
    public boolean isKeepAlive() {
        return true;
    }

    @Override
    public UdtChannelConfig setKeepAlive(boolean keepAlive) {
        return this; // UDT always sends keep-alive packets on an idle connection
    }

    @Override
    public int getTrafficClass() {
        return 0;
    }

    @Override
    public UdtChannelConfig setTrafficClass(int trafficClass) {
        return this; // UDT does not expose its UDP socket
    }

    @Override
    public boolean isReuseAddress() {
        try {
            return socket.getOption(OptionUDT.UDT_REUSEADDR);
        } catch (ExceptionUDT e) {
            throw new IllegalStateException("cannot read UDT_REUSEADDR: " + e.getMessage(), e);
        }
    }

    /** UDT_REUSEADDR; once the socket is bound or connected, no effect (UDT takes it only before). */
    @Override
    public UdtChannelConfig setReuseAddress(boolean reuseAddress) {
        if (socket.isBound()) {
            return this;
        }
        try {
            socket.setOption(OptionUDT.UDT_REUSEADDR, reuseAddress);
        } catch (ExceptionUDT e) {
            throw new IllegalStateException("UDT refused UDT_REUSEADDR=" + reuseAddress + ": " + e.getMessage(), e);
        }
        return this;
    }

    @Override
    public UdtChannelConfig setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        return this; // none in UDT: its buffer and bandwidth options are what it has
    }

    @Override
    public UdtChannelConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }

    @Override
    public UdtChannelConfig setMessageSizeEstimator(MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    public UdtChannelConfig setWriteBufferHighWaterMark(int writeBufferHighWaterMark) {
        super.setWriteBufferHighWaterMark(writeBufferHighWaterMark);
        return this;
    }

    @Override
    public UdtChannelConfig setWriteBufferLowWaterMark(int writeBufferLowWaterMark) {
        super.setWriteBufferLowWaterMark(writeBufferLowWaterMark);
        return this;
    }

    @Override
    public UdtChannelConfig setWriteBufferWaterMark(WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }

    /** For the listener's own socket: the address it is bound to, or the requested one. */
    static InetSocketAddress localAddressOf(SocketUDT socket) {
        try {
            return socket.isBound() ? socket.getLocalSocketAddress() : null;
        } catch (ExceptionUDT e) {
            return null;
        }
    }
}
