package io.ferry.transport.ledbat.channel;

import io.ferry.transport.FerryChannelOption;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.socket.DuplexChannelConfig;

import java.time.Duration;
import java.util.Map;

/**
 * The Netty-level configuration of a uTP connection: Netty's defaults plus half-closure. The protocol
 * settings (buffers, packet size, congestion control, target delay) are fixed when the connection is
 * created, from the options given to {@code connect}/{@code listen}.
 */
public final class UtpSocketChannelConfig extends DefaultChannelConfig implements DuplexChannelConfig {

    private volatile boolean allowHalfClosure;
    private volatile Duration linger = FerryChannelOption.DEFAULT_LINGER;

    UtpSocketChannelConfig(Channel channel) {
        super(channel);
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), ChannelOption.ALLOW_HALF_CLOSURE, FerryChannelOption.LINGER);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            return (T) Boolean.valueOf(isAllowHalfClosure());
        }
        if (option == FerryChannelOption.LINGER) {
            return (T) getLinger();
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            setAllowHalfClosure((Boolean) value);
            return true;
        }
        if (option == FerryChannelOption.LINGER) {
            setLinger((Duration) value);
            return true;
        }
        return super.setOption(option, value);
    }

    /** How long a graceful close waits for the peer to acknowledge everything ({@link FerryChannelOption#LINGER}). */
    public Duration getLinger() {
        return linger;
    }

    /** Sets {@link FerryChannelOption#LINGER}; zero makes {@code close()} abortive. */
    public UtpSocketChannelConfig setLinger(Duration linger) {
        FerryChannelOption.LINGER.validate(linger);
        this.linger = linger;
        return this;
    }

    @Override
    public boolean isAllowHalfClosure() {
        return allowHalfClosure;
    }

    @Override
    public UtpSocketChannelConfig setAllowHalfClosure(boolean allowHalfClosure) {
        this.allowHalfClosure = allowHalfClosure;
        return this;
    }

    @Override
    @Deprecated
    public UtpSocketChannelConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public UtpSocketChannelConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public UtpSocketChannelConfig setAllocator(io.netty.buffer.ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public UtpSocketChannelConfig setRecvByteBufAllocator(io.netty.channel.RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public UtpSocketChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    public UtpSocketChannelConfig setAutoClose(boolean autoClose) {
        super.setAutoClose(autoClose);
        return this;
    }

    @Override
    public UtpSocketChannelConfig setMessageSizeEstimator(io.netty.channel.MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    public UtpSocketChannelConfig setWriteBufferWaterMark(io.netty.channel.WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }

    @Override
    public UtpSocketChannelConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }
}
