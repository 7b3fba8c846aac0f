package io.ferry.examples.grpc;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.util.concurrent.DefaultPromise;
import io.netty.util.concurrent.GlobalEventExecutor;

/**
 * gRPC's client channel factory: every "new channel" is a Ferry connection to the URI, made by
 * {@link Transports#connect} on whatever transport the scheme names.
 */
final class FerryClientChannelFactory implements ChannelFactory<Channel> {

    private final Transports ferry;
    private final String uri;
    private final ChannelOptions options;

    FerryClientChannelFactory(Transports ferry, String uri, ChannelOptions options) {
        this.ferry = ferry;
        this.uri = uri;
        this.options = options;
    }

    @Override
    public Channel newChannel() {
        Adopter adopter = new Adopter(new DefaultPromise<>(GlobalEventExecutor.INSTANCE));
        ChannelFuture connect = ferry.connect(uri, new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addFirst("ferry-adopter", adopter);
            }
        }, options);
        adopter.ferryConnect(connect);
        connect.channel().attr(Adopter.KEY).set(adopter);
        return connect.channel();
    }
}
