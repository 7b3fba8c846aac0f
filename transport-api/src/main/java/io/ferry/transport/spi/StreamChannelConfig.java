package io.ferry.transport.spi;

import io.ferry.transport.FerryChannelOption;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.socket.SocketChannelConfig;

import java.time.Duration;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * The Netty-level configuration of a Ferry stream connection that is not a kernel socket (uTP, QUIC):
 * Netty's defaults plus half-closure and {@link FerryChannelOption#LINGER}. The transport's own settings
 * (buffers, packet size, congestion control) are fixed when the connection is created, from the options
 * given to {@code connect}/{@code listen}.
 *
 * <p>It is a {@link SocketChannelConfig}, so that code written for TCP channels (and engines' bootstraps,
 * which set socket options by habit) keeps working: {@code SO_LINGER} is {@link FerryChannelOption#LINGER}
 * in whole seconds; {@code SO_RCVBUF}/{@code SO_SNDBUF} read the connection's buffers, and setting them
 * after the connection was created has no effect (give {@code RECEIVE_BUFFER_SIZE}/{@code SEND_BUFFER_SIZE}
 * to {@code connect}/{@code listen}); {@code TCP_NODELAY} reads true (these transports send at every flush;
 * setting it has no effect); {@code SO_KEEPALIVE}, {@code SO_REUSEADDR} and {@code IP_TOS} are kept and read
 * back and have no effect on the UDP socket underneath.
 */
public class StreamChannelConfig extends DefaultChannelConfig implements SocketChannelConfig {

    private final IntSupplier receiveBufferSize;
    private final IntSupplier sendBufferSize;
    private final Runnable autoReadCleared;
    private volatile boolean allowHalfClosure;
    private volatile Duration linger = FerryChannelOption.DEFAULT_LINGER;
    private volatile boolean keepAlive;
    private volatile boolean reuseAddress;
    private volatile int trafficClass;

    /**
     * @param receiveBufferSize what {@code SO_RCVBUF} reads: the connection's receive buffer
     * @param sendBufferSize    what {@code SO_SNDBUF} reads: the connection's send buffer
     * @param autoReadCleared   told when auto-read is switched off (a pending {@code read()} no longer stands)
     */
    public StreamChannelConfig(Channel channel, IntSupplier receiveBufferSize, IntSupplier sendBufferSize,
                               Runnable autoReadCleared) {
        super(channel);
        setMessageSizeEstimator(io.ferry.transport.FerryChannels.FILE_REGIONS_COUNTED); // a queued file region holds writability as a buffer does
        this.receiveBufferSize = receiveBufferSize;
        this.sendBufferSize = sendBufferSize;
        this.autoReadCleared = autoReadCleared;
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(getOptions(super.getOptions(), FerryChannelOption.LINGER), SocketOptions.SOCKET);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == FerryChannelOption.LINGER) {
            return (T) getLinger();
        }
        T socket = SocketOptions.get(this, option);
        return socket != null ? socket : super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == FerryChannelOption.LINGER) {
            setLinger((Duration) value);
            return true;
        }
        return SocketOptions.set(this, option, value) || super.setOption(option, value);
    }

    @Override
    public int getSoLinger() {
        return (int) Math.min(Integer.MAX_VALUE, linger.getSeconds() + (linger.getNano() > 0 ? 1 : 0));
    }

    /** {@code SO_LINGER}: seconds a graceful close waits (zero: abortive); negative restores the default. */
    @Override
    public StreamChannelConfig setSoLinger(int soLinger) {
        return setLinger(soLinger < 0 ? FerryChannelOption.DEFAULT_LINGER : Duration.ofSeconds(soLinger));
    }

    @Override
    public int getReceiveBufferSize() {
        return receiveBufferSize.getAsInt();
    }

    @Override
    public StreamChannelConfig setReceiveBufferSize(int receiveBufferSize) {
        return this; // fixed when the connection is created (see the class comment)
    }

    @Override
    public int getSendBufferSize() {
        return sendBufferSize.getAsInt();
    }

    @Override
    public StreamChannelConfig setSendBufferSize(int sendBufferSize) {
        return this; // fixed when the connection is created (see the class comment)
    }

    @Override
    public boolean isTcpNoDelay() {
        return true;
    }

    @Override
    public StreamChannelConfig setTcpNoDelay(boolean tcpNoDelay) {
        return this; // a flushed write is never held back
    }

    @Override
    public boolean isKeepAlive() {
        return keepAlive;
    }

    @Override
    public StreamChannelConfig setKeepAlive(boolean keepAlive) {
        this.keepAlive = keepAlive;
        return this;
    }

    @Override
    public boolean isReuseAddress() {
        return reuseAddress;
    }

    @Override
    public StreamChannelConfig setReuseAddress(boolean reuseAddress) {
        this.reuseAddress = reuseAddress;
        return this;
    }

    @Override
    public int getTrafficClass() {
        return trafficClass;
    }

    @Override
    public StreamChannelConfig setTrafficClass(int trafficClass) {
        this.trafficClass = trafficClass;
        return this;
    }

    @Override
    public StreamChannelConfig setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        return this;
    }

    @Override
    public StreamChannelConfig setWriteBufferHighWaterMark(int writeBufferHighWaterMark) {
        super.setWriteBufferHighWaterMark(writeBufferHighWaterMark);
        return this;
    }

    @Override
    public StreamChannelConfig setWriteBufferLowWaterMark(int writeBufferLowWaterMark) {
        super.setWriteBufferLowWaterMark(writeBufferLowWaterMark);
        return this;
    }

    /** How long a graceful close waits for the peer to acknowledge everything ({@link FerryChannelOption#LINGER}). */
    public Duration getLinger() {
        return linger;
    }

    /** Sets {@link FerryChannelOption#LINGER}; zero makes {@code close()} abortive. */
    public StreamChannelConfig setLinger(Duration linger) {
        FerryChannelOption.LINGER.validate(linger);
        this.linger = linger;
        return this;
    }

    @Override
    public boolean isAllowHalfClosure() {
        return allowHalfClosure;
    }

    @Override
    public StreamChannelConfig setAllowHalfClosure(boolean allowHalfClosure) {
        this.allowHalfClosure = allowHalfClosure;
        return this;
    }

    @Override
    @Deprecated
    public StreamChannelConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public StreamChannelConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public StreamChannelConfig setAllocator(io.netty.buffer.ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public StreamChannelConfig setRecvByteBufAllocator(io.netty.channel.RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public StreamChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    protected void autoReadCleared() {
        autoReadCleared.run();
    }

    @Override
    public StreamChannelConfig setAutoClose(boolean autoClose) {
        super.setAutoClose(autoClose);
        return this;
    }

    @Override
    public StreamChannelConfig setMessageSizeEstimator(io.netty.channel.MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    public StreamChannelConfig setWriteBufferWaterMark(io.netty.channel.WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }

    @Override
    public StreamChannelConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }
}
