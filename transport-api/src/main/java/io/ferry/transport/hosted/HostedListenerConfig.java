package io.ferry.transport.hosted;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.ServerSocketChannelConfig;

import java.util.Map;

/**
 * A hosted listener's configuration: auto-read (the pace at which the acceptor takes connections) is the
 * host's; the backlog, address reuse, receive buffer and the transport's own options are the carried
 * listener's, read and written there.
 */
final class HostedListenerConfig extends DefaultChannelConfig implements ServerSocketChannelConfig {

    private final ServerSocketChannelConfig carried;

    HostedListenerConfig(HostedServerChannel channel, ServerSocketChannelConfig carried) {
        super(channel);
        this.carried = carried;
    }

    private static boolean hostOnly(ChannelOption<?> option) {
        return option == ChannelOption.AUTO_READ || option == ChannelOption.AUTO_CLOSE || option == ChannelOption.ALLOCATOR
                || option == ChannelOption.RCVBUF_ALLOCATOR || option == ChannelOption.MESSAGE_SIZE_ESTIMATOR
                || option == ChannelOption.MAX_MESSAGES_PER_READ || option == ChannelOption.CONNECT_TIMEOUT_MILLIS
                || option == ChannelOption.WRITE_SPIN_COUNT || option == ChannelOption.WRITE_BUFFER_WATER_MARK
                || option == ChannelOption.WRITE_BUFFER_HIGH_WATER_MARK || option == ChannelOption.WRITE_BUFFER_LOW_WATER_MARK
                || option == ChannelOption.SINGLE_EVENTEXECUTOR_PER_GROUP || option == ChannelOption.MAX_MESSAGES_PER_WRITE;
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        Map<ChannelOption<?>, Object> all = carried.getOptions();
        all.putAll(super.getOptions());
        return all;
    }

    @Override
    public <T> T getOption(ChannelOption<T> option) {
        return hostOnly(option) ? super.getOption(option) : carried.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        return hostOnly(option) ? super.setOption(option, value) : carried.setOption(option, value);
    }

    @Override
    public int getBacklog() {
        return carried.getBacklog();
    }

    @Override
    public HostedListenerConfig setBacklog(int backlog) {
        carried.setBacklog(backlog);
        return this;
    }

    @Override
    public boolean isReuseAddress() {
        return carried.isReuseAddress();
    }

    @Override
    public HostedListenerConfig setReuseAddress(boolean reuseAddress) {
        carried.setReuseAddress(reuseAddress);
        return this;
    }

    @Override
    public int getReceiveBufferSize() {
        return carried.getReceiveBufferSize();
    }

    @Override
    public HostedListenerConfig setReceiveBufferSize(int receiveBufferSize) {
        carried.setReceiveBufferSize(receiveBufferSize);
        return this;
    }

    @Override
    public HostedListenerConfig setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        carried.setPerformancePreferences(connectionTime, latency, bandwidth);
        return this;
    }

    @Override
    public HostedListenerConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }

    @Override
    @Deprecated
    public HostedListenerConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public HostedListenerConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public HostedListenerConfig setAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public HostedListenerConfig setRecvByteBufAllocator(RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public HostedListenerConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    public HostedListenerConfig setMessageSizeEstimator(MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    public HostedListenerConfig setWriteBufferHighWaterMark(int writeBufferHighWaterMark) {
        super.setWriteBufferHighWaterMark(writeBufferHighWaterMark);
        return this;
    }

    @Override
    public HostedListenerConfig setWriteBufferLowWaterMark(int writeBufferLowWaterMark) {
        super.setWriteBufferLowWaterMark(writeBufferLowWaterMark);
        return this;
    }

    @Override
    public HostedListenerConfig setWriteBufferWaterMark(WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }
}
