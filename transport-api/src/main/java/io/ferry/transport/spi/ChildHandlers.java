package io.ferry.transport.spi;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerAdapter;

/**
 * Adds a listener's child handler to an accepted connection. Netty refuses a handler that is not
 * {@code @Sharable} in a second pipeline, but its check (a plain flag on the handler) holds only when
 * the adds are serialised, as {@code ServerBootstrap}'s acceptor serialises them on the listener's loop.
 * Ferry's listeners initialise connections on the loops that accepted them, several at once, so a
 * handler that is not {@code @Sharable} is added under its own lock: the second connection is refused
 * it, never silently given the same instance.
 */
public final class ChildHandlers {

    private ChildHandlers() {
    }

    /**
     * Adds {@code handler} last in {@code child}'s pipeline.
     *
     * @throws io.netty.channel.ChannelPipelineException if {@code handler} is not {@code @Sharable} and
     *         another pipeline has it already
     */
    public static void addLast(Channel child, ChannelHandler handler) {
        if (handler instanceof ChannelHandlerAdapter && ((ChannelHandlerAdapter) handler).isSharable()) {
            child.pipeline().addLast(handler);
            return;
        }
        synchronized (handler) {
            child.pipeline().addLast(handler);
        }
    }
}
