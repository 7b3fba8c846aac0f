package io.ferry.transport.striped;

import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.socket.SocketChannelConfig;
import io.ferry.transport.spi.SocketOptions;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import java.util.List;
import java.time.Duration;
import java.util.function.Consumer;

import java.util.Map;

/**
 * The configuration of a {@link StripedChannel}: Netty's usual options (auto-read, water marks,
 * allocator) and {@link ChannelOption#ALLOW_HALF_CLOSURE}. Options of the transport itself (buffers,
 * congestion control, linger) belong to the member connections and are given when connecting.
 *
 * <p>It is a {@link SocketChannelConfig}, for code written for TCP channels and engines' bootstraps:
 * {@code SO_RCVBUF}, {@code SO_SNDBUF}, {@code TCP_NODELAY}, {@code SO_KEEPALIVE}, {@code SO_REUSEADDR} and
 * {@code IP_TOS} go to every member (each takes them as its transport does) and read back from the first;
 * {@code SO_LINGER} is the channel's linger in seconds: 0 makes {@code close()} an abort (every member
 * reset), a negative value restores {@link io.ferry.transport.FerryChannelOption#DEFAULT_LINGER}.
 */
public final class StripedChannelConfig extends DefaultChannelConfig implements SocketChannelConfig {

    private volatile boolean allowHalfClosure;

    private final StripedChannel striped;

    StripedChannelConfig(StripedChannel channel) {
        super(channel);
        this.striped = channel;
    }

    @Override
    protected void autoReadCleared() {
        if (striped.isRegistered()) { // before, no read can be pending, and the channel's loop is not yet known
            striped.onLoop(striped::autoReadCleared);
        }
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), SocketOptions.SOCKET);
    }

    @Override
    public <T> T getOption(ChannelOption<T> option) {
        T socket = SocketOptions.get(this, option);
        return socket != null ? socket : super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        return SocketOptions.set(this, option, value) || super.setOption(option, value);
    }

    /** The first member's socket configuration, or null before the members are attached (or if it has none). */
    private SocketChannelConfig first() {
        List<Channel> members = striped.members();
        ChannelConfig config = members.isEmpty() ? null : members.get(0).config();
        return config instanceof SocketChannelConfig ? (SocketChannelConfig) config : null;
    }

    private StripedChannelConfig toMembers(Consumer<SocketChannelConfig> setting) {
        for (Channel member : striped.members()) {
            if (member.config() instanceof SocketChannelConfig) {
                setting.accept((SocketChannelConfig) member.config());
            }
        }
        return this;
    }

    @Override
    public int getReceiveBufferSize() {
        SocketChannelConfig c = first();
        return c == null ? 0 : c.getReceiveBufferSize();
    }

    @Override
    public StripedChannelConfig setReceiveBufferSize(int receiveBufferSize) {
        return toMembers(c -> c.setReceiveBufferSize(receiveBufferSize));
    }

    @Override
    public int getSendBufferSize() {
        SocketChannelConfig c = first();
        return c == null ? 0 : c.getSendBufferSize();
    }

    @Override
    public StripedChannelConfig setSendBufferSize(int sendBufferSize) {
        return toMembers(c -> c.setSendBufferSize(sendBufferSize));
    }

    @Override
    public boolean isTcpNoDelay() {
        SocketChannelConfig c = first();
        return c == null || c.isTcpNoDelay();
    }

    @Override
    public StripedChannelConfig setTcpNoDelay(boolean tcpNoDelay) {
        return toMembers(c -> c.setTcpNoDelay(tcpNoDelay));
    }

    @Override
    public boolean isKeepAlive() {
        SocketChannelConfig c = first();
        return c != null && c.isKeepAlive();
    }

    @Override
    public StripedChannelConfig setKeepAlive(boolean keepAlive) {
        return toMembers(c -> c.setKeepAlive(keepAlive));
    }

    @Override
    public boolean isReuseAddress() {
        SocketChannelConfig c = first();
        return c != null && c.isReuseAddress();
    }

    @Override
    public StripedChannelConfig setReuseAddress(boolean reuseAddress) {
        return toMembers(c -> c.setReuseAddress(reuseAddress));
    }

    @Override
    public int getTrafficClass() {
        SocketChannelConfig c = first();
        return c == null ? 0 : c.getTrafficClass();
    }

    @Override
    public StripedChannelConfig setTrafficClass(int trafficClass) {
        return toMembers(c -> c.setTrafficClass(trafficClass));
    }

    @Override
    public int getSoLinger() {
        Duration l = striped.linger();
        return l == null ? -1 : (int) Math.min(Integer.MAX_VALUE, l.getSeconds() + (l.getNano() > 0 ? 1 : 0));
    }

    @Override
    public StripedChannelConfig setSoLinger(int soLinger) {
        striped.linger(soLinger < 0 ? io.ferry.transport.FerryChannelOption.DEFAULT_LINGER : Duration.ofSeconds(soLinger));
        return this;
    }

    @Override
    public StripedChannelConfig setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        return this;
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
