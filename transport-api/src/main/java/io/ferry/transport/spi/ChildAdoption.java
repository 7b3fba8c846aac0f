package io.ferry.transport.spi;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.function.Consumer;

/**
 * Sits first in a listener's pipeline and makes every accepted connection the transport's (its
 * attribute, byte counter, lingering close, tracking) before the connection travels on to whoever
 * accepts it: Ferry's own listener, or the acceptor a user's {@code ServerBootstrap} added. A connection
 * the transport cannot take is closed and logged, and goes no further.
 */
public final class ChildAdoption extends ChannelInboundHandlerAdapter {

    private static final InternalLogger LOG = InternalLoggerFactory.getInstance(ChildAdoption.class);

    private final Consumer<Channel> adopt;

    public ChildAdoption(Consumer<Channel> adopt) {
        this.adopt = adopt;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Channel) {
            Channel child = (Channel) msg;
            try {
                adopt.accept(child);
            } catch (RuntimeException e) {
                LOG.warn("Failed to adopt an accepted connection {}; closing it", child, e);
                child.unsafe().closeForcibly();
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }
}
