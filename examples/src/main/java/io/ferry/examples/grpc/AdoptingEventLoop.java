package io.ferry.examples.grpc;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelPromise;
import io.netty.channel.DefaultEventLoop;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The event loop grpc-netty is given. Channels come from Ferry already registered on their transport's
 * own event loop, so "registering" one here only waits until Ferry has done it (see {@link Adopter});
 * the channel keeps running on Ferry's loop. This loop's own thread runs only what gRPC schedules on
 * the group itself (e.g. keep-alive timers).
 */
final class AdoptingEventLoop extends DefaultEventLoop {

    AdoptingEventLoop() {
        super(new DefaultThreadFactory("ferry-grpc", true));
    }

    @Override
    public ChannelFuture register(Channel channel) {
        return adopt(channel, new DefaultChannelPromise(channel, this));
    }

    @Override
    public ChannelFuture register(ChannelPromise promise) {
        return adopt(promise.channel(), promise);
    }

    @Override
    @Deprecated
    public ChannelFuture register(Channel channel, ChannelPromise promise) {
        return adopt(channel, promise);
    }

    private ChannelFuture adopt(Channel channel, ChannelPromise promise) {
        Adopter adopter = channel.attr(Adopter.KEY).get();
        if (adopter == null) {
            promise.setFailure(new IllegalStateException(channel + " was not created by Ferry for gRPC"));
            return promise;
        }
        adopter.registered().addListener(f -> {
            if (!f.isSuccess()) {
                promise.tryFailure(f.cause());
                return;
            }
            // After the handlers gRPC added from another thread (queued on the channel's loop before this task).
            channel.eventLoop().execute(() -> {
                promise.trySuccess();
                if (channel.parent() != null) {
                    adopter.release(); // an accepted channel: gRPC's server handlers are in place now
                }
            });
        });
        return promise;
    }
}
