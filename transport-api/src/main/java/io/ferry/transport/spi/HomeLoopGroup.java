package io.ferry.transport.spi;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;

import java.util.concurrent.ThreadFactory;

/**
 * The event loops of a transport whose accepted connections share a socket with their listener (uTP's
 * UDP socket, a QUIC connection's). Netty's {@code ServerBootstrap} registers each accepted connection with
 * its child group's next loop, but such a connection must live on its socket's loop: this group registers
 * a {@link HomeLoop} channel that names one there, and anything else as any group does.
 */
public class HomeLoopGroup extends MultiThreadIoEventLoopGroup {

    /** A channel that must be registered on one loop of its transport's group. */
    public interface HomeLoop {
        /** The loop this channel must be registered on, or null if any will do. */
        EventLoop homeLoop();
    }

    public HomeLoopGroup(int threads, ThreadFactory threadFactory, IoHandlerFactory ioHandlerFactory) {
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
        return channel instanceof HomeLoop h ? h.homeLoop() : null;
    }
}
