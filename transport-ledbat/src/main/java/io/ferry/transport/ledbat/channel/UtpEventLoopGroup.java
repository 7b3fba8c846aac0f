package io.ferry.transport.ledbat.channel;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;

import java.util.concurrent.ThreadFactory;

/**
 * The uTP transport's event loops. Netty's {@code ServerBootstrap} registers each accepted connection
 * with its child group's next loop, but a uTP connection shares its listener's UDP socket and must live
 * on that socket's loop: this group registers an accepted uTP connection there, and anything else as any
 * group does.
 */
final class UtpEventLoopGroup extends MultiThreadIoEventLoopGroup {

    UtpEventLoopGroup(int threads, ThreadFactory threadFactory, IoHandlerFactory ioHandlerFactory) {
        super(threads, threadFactory, ioHandlerFactory);
    }

    @Override
    public ChannelFuture register(Channel channel) {
        EventLoop home = home(channel);
        return home != null ? home.register(channel) : super.register(channel);
    }

    @Override
    public ChannelFuture register(ChannelPromise promise) {
        EventLoop home = home(promise.channel());
        return home != null ? home.register(promise) : super.register(promise);
    }

    private static EventLoop home(Channel channel) {
        return channel instanceof UtpSocketChannel ? ((UtpSocketChannel) channel).homeLoop() : null;
    }
}
