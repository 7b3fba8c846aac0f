package io.ferry.transport.hosted;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannelConfig;

import java.util.Map;

/**
 * A hosted connection's configuration. What governs the host's own side stays here: auto-read and the
 * receive-buffer allocator (the host's read loops; the carried connection reads ahead on its own terms),
 * auto-close, half-closure (the carried connection always allows it; the host decides), the write-buffer
 * water marks and the message-size estimator (the host's outbound buffer is the user's backpressure). The
 * rest, socket options and the transport's own options included, is the carried connection's
 * configuration, read and written there; the buffer allocator and the connect timeout are set on both.
 */
public final class HostedConfig extends DefaultChannelConfig implements SocketChannelConfig {

    private final SocketChannelConfig carried;
    private volatile boolean allowHalfClosure;

    HostedConfig(HostedSocketChannel channel, SocketChannelConfig carried) {
        super(channel);
        setMessageSizeEstimator(io.ferry.transport.FerryChannels.FILE_REGIONS_COUNTED); // a queued file region holds writability as a buffer does
        this.carried = carried;
    }

    private static boolean hostOnly(ChannelOption<?> option) {
        return option == ChannelOption.AUTO_READ || option == ChannelOption.AUTO_CLOSE
                || option == ChannelOption.ALLOW_HALF_CLOSURE || option == ChannelOption.WRITE_BUFFER_WATER_MARK
                || option == ChannelOption.WRITE_BUFFER_HIGH_WATER_MARK || option == ChannelOption.WRITE_BUFFER_LOW_WATER_MARK
                || option == ChannelOption.MESSAGE_SIZE_ESTIMATOR || option == ChannelOption.WRITE_SPIN_COUNT
                || option == ChannelOption.MAX_MESSAGES_PER_WRITE || option == ChannelOption.SINGLE_EVENTEXECUTOR_PER_GROUP
                || option == ChannelOption.RCVBUF_ALLOCATOR || option == ChannelOption.MAX_MESSAGES_PER_READ;
    }

    private static boolean both(ChannelOption<?> option) {
        return option == ChannelOption.ALLOCATOR || option == ChannelOption.CONNECT_TIMEOUT_MILLIS;
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        Map<ChannelOption<?>, Object> all = carried.getOptions();
        all.putAll(super.getOptions());
        all.put(ChannelOption.ALLOW_HALF_CLOSURE, allowHalfClosure);
        return all;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            return (T) Boolean.valueOf(allowHalfClosure);
        }
        return hostOnly(option) || both(option) ? super.getOption(option) : carried.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            allowHalfClosure = (Boolean) value;
            return true;
        }
        if (hostOnly(option)) {
            return super.setOption(option, value);
        }
        if (both(option)) {
            return super.setOption(option, value) & carried.setOption(option, value);
        }
        return carried.setOption(option, value);
    }

    @Override
    public boolean isAllowHalfClosure() {
        return allowHalfClosure;
    }

    @Override
    public HostedConfig setAllowHalfClosure(boolean allowHalfClosure) {
        this.allowHalfClosure = allowHalfClosure;
        return this;
    }

    @Override
    public int getReceiveBufferSize() {
        return carried.getReceiveBufferSize();
    }

    @Override
    public HostedConfig setReceiveBufferSize(int receiveBufferSize) {
        carried.setReceiveBufferSize(receiveBufferSize);
        return this;
    }

    @Override
    public int getSendBufferSize() {
        return carried.getSendBufferSize();
    }

    @Override
    public HostedConfig setSendBufferSize(int sendBufferSize) {
        carried.setSendBufferSize(sendBufferSize);
        return this;
    }

    @Override
    public boolean isTcpNoDelay() {
        return carried.isTcpNoDelay();
    }

    @Override
    public HostedConfig setTcpNoDelay(boolean tcpNoDelay) {
        carried.setTcpNoDelay(tcpNoDelay);
        return this;
    }

    @Override
    public int getSoLinger() {
        return carried.getSoLinger();
    }

    @Override
    public HostedConfig setSoLinger(int soLinger) {
        carried.setSoLinger(soLinger);
        return this;
    }

    @Override
    public boolean isKeepAlive() {
        return carried.isKeepAlive();
    }

    @Override
    public HostedConfig setKeepAlive(boolean keepAlive) {
        carried.setKeepAlive(keepAlive);
        return this;
    }

    @Override
    public boolean isReuseAddress() {
        return carried.isReuseAddress();
    }

    @Override
    public HostedConfig setReuseAddress(boolean reuseAddress) {
        carried.setReuseAddress(reuseAddress);
        return this;
    }

    @Override
    public int getTrafficClass() {
        return carried.getTrafficClass();
    }

    @Override
    public HostedConfig setTrafficClass(int trafficClass) {
        carried.setTrafficClass(trafficClass);
        return this;
    }

    @Override
    public HostedConfig setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        carried.setPerformancePreferences(connectionTime, latency, bandwidth);
        return this;
    }

    @Override
    public HostedConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        if (carried != null) {
            carried.setConnectTimeoutMillis(connectTimeoutMillis);
        }
        return this;
    }

    @Override
    @Deprecated
    public HostedConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public HostedConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public HostedConfig setAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        if (carried != null) {
            carried.setAllocator(allocator);
        }
        return this;
    }

    @Override
    public HostedConfig setRecvByteBufAllocator(RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public HostedConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    protected void autoReadCleared() {
        ((HostedSocketChannel) channel).autoReadCleared();
    }

    @Override
    public HostedConfig setAutoClose(boolean autoClose) {
        super.setAutoClose(autoClose);
        return this;
    }

    @Override
    public HostedConfig setWriteBufferHighWaterMark(int writeBufferHighWaterMark) {
        super.setWriteBufferHighWaterMark(writeBufferHighWaterMark);
        return this;
    }

    @Override
    public HostedConfig setWriteBufferLowWaterMark(int writeBufferLowWaterMark) {
        super.setWriteBufferLowWaterMark(writeBufferLowWaterMark);
        return this;
    }

    @Override
    public HostedConfig setWriteBufferWaterMark(WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }

    @Override
    public HostedConfig setMessageSizeEstimator(MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }
}
