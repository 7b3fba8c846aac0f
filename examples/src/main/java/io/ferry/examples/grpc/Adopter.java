package io.ferry.examples.grpc;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.Promise;

import java.net.SocketAddress;

/**
 * First handler of a Ferry channel handed to grpc-netty's bootstrap. It reports when Ferry has
 * registered the channel (so {@link AdoptingEventLoop} can complete the bootstrap's registration),
 * answers the bootstrap's {@code connect} with the outcome of Ferry's own connect, and holds back
 * {@code channelActive} (and reading) until gRPC's handlers are in the pipeline, so they see the
 * ordinary sequence register, connect, active.
 */
final class Adopter extends ChannelDuplexHandler {

    /** Where {@link AdoptingEventLoop} finds a channel's adopter, set as soon as the channel exists. */
    static final io.netty.util.AttributeKey<Adopter> KEY = io.netty.util.AttributeKey.valueOf("ferry.grpc.adopter");

    private final Promise<Void> registered;
    private volatile ChannelFuture ferryConnect;
    private ChannelHandlerContext ctx;
    private boolean activeHeld;
    private boolean released;
    private boolean ferryConnectSeen;

    Adopter(Promise<Void> registered) {
        this.registered = registered;
    }

    /** The future of Ferry's connect for a client channel. */
    void ferryConnect(ChannelFuture future) {
        this.ferryConnect = future;
    }

    /** Completes when Ferry has registered the channel. */
    Promise<Void> registered() {
        return registered;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        ctx.channel().config().setAutoRead(false);
        registered.trySuccess(null);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (released) {
            ctx.fireChannelActive();
        } else {
            activeHeld = true;
        }
    }

    /** On the channel's event loop, after gRPC's handlers were added: lets events through. */
    void release() {
        if (released) {
            return;
        }
        released = true;
        if (activeHeld) {
            ctx.fireChannelActive();
        }
        ctx.channel().config().setAutoRead(true);
    }

    @Override
    public void connect(ChannelHandlerContext ctx, SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
        if (!ferryConnectSeen) {
            // The transport's own connect (issued right after Ferry registered the channel) goes through.
            ferryConnectSeen = true;
            ctx.connect(remoteAddress, localAddress, promise);
            return;
        }
        ChannelFuture ferry = ferryConnect;
        if (ferry == null) {
            promise.setFailure(new IllegalStateException("this channel was accepted by a Ferry listener; it cannot connect"));
            return;
        }
        ferry.addListener(f -> {
            if (f.isSuccess()) {
                promise.trySuccess();
                ctx.executor().execute(this::release);
            } else {
                promise.tryFailure(f.cause());
            }
        });
    }
}
