package io.ferry.transport.spi;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;

import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.function.Consumer;

/**
 * The connect sequence every transport shares: once the channel is registered, prepare it (apply
 * options, which may fail with a clear exception), refuse an unresolved address with
 * {@link UnknownHostException}, then connect. Any failure closes the channel and fails the returned future.
 */
public final class RegisteredConnect {

    private RegisteredConnect() {
    }

    /**
     * @param registered the channel's registration
     * @param remote     where to connect; an unresolved address fails with {@link UnknownHostException}
     * @param prepare    runs on the event loop before connecting; a {@link RuntimeException} fails the connect
     * @return a future completed when the connection is established or has failed
     */
    public static ChannelFuture connect(ChannelFuture registered, InetSocketAddress remote, Consumer<Channel> prepare) {
        Channel channel = registered.channel();
        ChannelPromise connected = channel.newPromise();
        registered.addListener(f -> {
            if (!f.isSuccess()) {
                connected.setFailure(f.cause());
                return;
            }
            try {
                prepare.accept(channel);
            } catch (RuntimeException e) {
                channel.close();
                connected.setFailure(e);
                return;
            }
            if (remote.isUnresolved()) {
                channel.close();
                connected.setFailure(new UnknownHostException("cannot resolve host '" + remote.getHostString() + "'"));
                return;
            }
            channel.connect(remote, connected);
        });
        return connected;
    }
}
