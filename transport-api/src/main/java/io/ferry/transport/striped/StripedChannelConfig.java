package io.ferry.transport.striped;

import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.socket.DuplexChannelConfig;

import java.util.Map;

/**
 * The configuration of a {@link StripedChannel}: Netty's usual options (auto-read, water marks,
 * allocator) and {@link ChannelOption#ALLOW_HALF_CLOSURE}. Options of the transport itself (buffers,
 * congestion control, linger) belong to the member connections and are given when connecting.
 */
public final class StripedChannelConfig extends DefaultChannelConfig implements DuplexChannelConfig {

    private volatile boolean allowHalfClosure;

    private final StripedChannel striped;

    StripedChannelConfig(StripedChannel channel) {
        super(channel);
        this.striped = channel;
    }

    @Override
    protected void autoReadCleared() {
        if (striped.intendedLoop() != null) {
            striped.onLoop(striped::pumpReads); // the members stop reading too
        }
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), ChannelOption.ALLOW_HALF_CLOSURE);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            return (T) Boolean.valueOf(allowHalfClosure);
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            allowHalfClosure = (Boolean) value;
            return true;
        }
        return super.setOption(option, value);
    }

    @Override
    public boolean isAllowHalfClosure() {
        return allowHalfClosure;
    }

    @Override
    public StripedChannelConfig setAllowHalfClosure(boolean allowHalfClosure) {
        this.allowHalfClosure = allowHalfClosure;
        return this;
    }

    @Override
    @Deprecated
    public StripedChannelConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public StripedChannelConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public StripedChannelConfig setAllocator(io.netty.buffer.ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public StripedChannelConfig setRecvByteBufAllocator(io.netty.channel.RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public StripedChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    public StripedChannelConfig setAutoClose(boolean autoClose) {
        super.setAutoClose(autoClose);
        return this;
    }

    @Override
    public StripedChannelConfig setWriteBufferHighWaterMark(int writeBufferHighWaterMark) {
        super.setWriteBufferHighWaterMark(writeBufferHighWaterMark);
        return this;
    }

    @Override
    public StripedChannelConfig setWriteBufferLowWaterMark(int writeBufferLowWaterMark) {
        super.setWriteBufferLowWaterMark(writeBufferLowWaterMark);
        return this;
    }

    @Override
    public StripedChannelConfig setWriteBufferWaterMark(io.netty.channel.WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }

    @Override
    public StripedChannelConfig setMessageSizeEstimator(io.netty.channel.MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    public StripedChannelConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }
}
