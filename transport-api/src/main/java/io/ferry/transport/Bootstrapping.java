package io.ferry.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;

import java.util.Objects;

/**
 * What an engine that builds its own Netty bootstraps (gRPC, Arrow Flight, Vert.x, Spark) needs to run on a
 * Ferry transport: the event loops the transport's channels live on and factories for its client and
 * listener channels. The group belongs to the transport and closes with it; shut it down through
 * {@link Transports#close()}, not through the engine.
 *
 * <pre>{@code
 * Bootstrapping utp = ferry.bootstrapping("utp");
 * new ServerBootstrap().group(utp.group()).channelFactory(utp.serverChannelFactory())
 *         .childHandler(new ChannelInitializer<SocketChannel>() { ... }).bind(9000);
 * new Bootstrap().group(utp.group()).channelFactory(utp.channelFactory()).handler(...).connect(host, 9000);
 * }</pre>
 *
 * @param group                the transport's event loops (boss and worker group alike)
 * @param channelFactory       client connections, not yet connected
 * @param serverChannelFactory listeners, not yet bound; their connections are {@link SocketChannel}s too
 */
public record Bootstrapping(EventLoopGroup group, ChannelFactory<? extends SocketChannel> channelFactory,
                           ChannelFactory<? extends ServerSocketChannel> serverChannelFactory) {

    public Bootstrapping {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(channelFactory, "channelFactory");
        Objects.requireNonNull(serverChannelFactory, "serverChannelFactory");
    }

    /** A client bootstrap on this transport: its group and channel factory set. */
    public Bootstrap bootstrap() {
        return new Bootstrap().group(group).channelFactory(channelFactory);
    }

    /** A server bootstrap on this transport: its group (as boss and workers) and channel factory set. */
    public ServerBootstrap serverBootstrap() {
        return new ServerBootstrap().group(group, group).channelFactory(serverChannelFactory);
    }
}
