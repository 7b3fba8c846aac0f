package io.ferry.transport.spi;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.ServerSocketChannelConfig;

import java.util.Map;

/**
 * The configuration of a Ferry listener that is not a kernel socket (uTP, UDT, striped), as a
 * {@link ServerSocketChannelConfig} so that code written for TCP listeners keeps working. The backlog,
 * address reuse and receive buffer a bootstrap sets by habit are kept and read back, and have no effect:
 * such a listener has no accept queue of the kernel's, and its connections take their buffers from the
 * transport's own options ({@code Transports.listen}'s or the children's). Performance preferences are
 * ignored, as the JDK allows.
 */
public class ListenerConfig extends DefaultChannelConfig implements ServerSocketChannelConfig {

    private volatile int backlog = 128;
    private volatile boolean reuseAddress = true;
    private volatile int receiveBufferSize = 1 << 20;

    public ListenerConfig(ServerChannel channel) {
        super(channel);
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), ChannelOption.SO_BACKLOG, ChannelOption.SO_REUSEADDR, ChannelOption.SO_RCVBUF);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.SO_BACKLOG) {
            return (T) Integer.valueOf(getBacklog());
        }
        if (option == ChannelOption.SO_REUSEADDR) {
            return (T) Boolean.valueOf(isReuseAddress());
        }
        if (option == ChannelOption.SO_RCVBUF) {
            return (T) Integer.valueOf(getReceiveBufferSize());
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.SO_BACKLOG) {
            setBacklog((Integer) value);
        } else if (option == ChannelOption.SO_REUSEADDR) {
            setReuseAddress((Boolean) value);
        } else if (option == ChannelOption.SO_RCVBUF) {
            setReceiveBufferSize((Integer) value);
        } else if (HabitualOptions.isKernelTcpKnob(option)) {
            return true; // SO_REUSEPORT, TCP_DEFER_ACCEPT, TCP_FASTOPEN...: no kernel listener to give them to
        } else {
            return super.setOption(option, value);
        }
        return true;
    }

    @Override
    public int getBacklog() {
        return backlog;
    }

    @Override
    public ListenerConfig setBacklog(int backlog) {
        if (backlog < 0) {
            throw new IllegalArgumentException("SO_BACKLOG must be 0 or more, got " + backlog);
        }
        this.backlog = backlog;
        return this;
    }

    @Override
    public boolean isReuseAddress() {
        return reuseAddress;
    }

    @Override
    public ListenerConfig setReuseAddress(boolean reuseAddress) {
        this.reuseAddress = reuseAddress;
        return this;
    }

    @Override
    public int getReceiveBufferSize() {
        return receiveBufferSize;
    }

    @Override
    public ListenerConfig setReceiveBufferSize(int receiveBufferSize) {
        if (receiveBufferSize <= 0) {
            throw new IllegalArgumentException("SO_RCVBUF must be positive, got " + receiveBufferSize);
        }
        this.receiveBufferSize = receiveBufferSize;
        return this;
    }

    @Override
    public ListenerConfig setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        return this;
    }

    @Override
    public ListenerConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }

    @Override
    @Deprecated
    public ListenerConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public ListenerConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public ListenerConfig setAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public ListenerConfig setRecvByteBufAllocator(RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public ListenerConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    public ListenerConfig setMessageSizeEstimator(MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    public ListenerConfig setWriteBufferHighWaterMark(int writeBufferHighWaterMark) {
        super.setWriteBufferHighWaterMark(writeBufferHighWaterMark);
        return this;
    }

    @Override
    public ListenerConfig setWriteBufferLowWaterMark(int writeBufferLowWaterMark) {
        super.setWriteBufferLowWaterMark(writeBufferLowWaterMark);
        return this;
    }

    @Override
    public ListenerConfig setWriteBufferWaterMark(WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }
}
