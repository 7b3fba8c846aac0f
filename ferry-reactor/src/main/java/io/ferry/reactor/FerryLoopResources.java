package io.ferry.reactor;

import io.ferry.transport.Bootstrapping;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import reactor.core.publisher.Mono;
import reactor.netty.resources.LoopResources;

import java.time.Duration;

/**
 * {@link LoopResources} made of a Ferry transport's {@link Bootstrapping}: its group serves clients, servers
 * and their acceptors, and its factories make the {@link SocketChannel}s and {@link ServerSocketChannel}s
 * Reactor Netty asks for. Any other channel type (a {@code DatagramChannel} for a DNS resolver set on the
 * loops) comes from Reactor Netty's own choice for the group. Disposing ends nothing: the loops are the
 * transport's.
 */
final class FerryLoopResources implements LoopResources {

    private final String scheme;
    private final Bootstrapping parts;

    FerryLoopResources(String scheme, Bootstrapping parts) {
        this.scheme = scheme;
        this.parts = parts;
    }

    @Override
    public EventLoopGroup onServer(boolean useNative) {
        return parts.group();
    }

    @Override
    public EventLoopGroup onClient(boolean useNative) {
        return parts.group();
    }

    @Override
    public EventLoopGroup onServerSelect(boolean useNative) {
        return parts.group();
    }

    @Override
    public <CHANNEL extends Channel> CHANNEL onChannel(Class<CHANNEL> channelType, EventLoopGroup group) {
        if (channelType == SocketChannel.class) {
            return channelType.cast(parts.channelFactory().newChannel());
        }
        if (channelType == ServerSocketChannel.class) {
            return channelType.cast(parts.serverChannelFactory().newChannel());
        }
        return LoopResources.super.onChannel(channelType, group);
    }

    @Override
    public <CHANNEL extends Channel> Class<? extends CHANNEL> onChannelClass(Class<CHANNEL> channelType, EventLoopGroup group) {
        if (channelType == SocketChannel.class || channelType == ServerSocketChannel.class) {
            // the factories' product; the class is what a caller that instantiates by reflection would need,
            // and Ferry's channels are not made so: only onChannel makes them
            throw new UnsupportedOperationException("Ferry's " + scheme + " channels are made by onChannel, not by reflection on a class");
        }
        return LoopResources.super.onChannelClass(channelType, group);
    }

    @Override
    public boolean isDisposed() {
        return parts.group().isShuttingDown();
    }

    @Override
    public Mono<Void> disposeLater(Duration quietPeriod, Duration timeout) {
        return Mono.empty(); // the transport's loops: Transports.close() ends them
    }

    @Override
    public String toString() {
        return "FerryLoopResources[" + scheme + "]";
    }
}
