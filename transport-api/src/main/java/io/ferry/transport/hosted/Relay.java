package io.ferry.transport.hosted;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.ChannelOutputShutdownEvent;
import io.netty.util.ReferenceCountUtil;

import java.util.ArrayList;
import java.util.List;

/**
 * The last handler of a carried connection's pipeline (on the transport's loop): passes what the connection
 * reads, one read batch per task, and its events to the {@link HostedSocketChannel} on that channel's loop,
 * in the order they happened; pauses the connection's reading while the host has
 * {@link HostedSocketChannel#PAUSE_AT} bytes or more to take.
 */
final class Relay extends ChannelInboundHandlerAdapter {

    private final HostedSocketChannel host;
    private List<Object> batch = new ArrayList<>();

    Relay(HostedSocketChannel host) {
        this.host = host;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        batch.add(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        pass();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        pass();
        if (evt == ChannelInputShutdownEvent.INSTANCE) {
            host.post(host::carriedInputShutdown);
        } else if (!(evt instanceof ChannelOutputShutdownEvent) && evt != ChannelInputShutdownReadComplete.INSTANCE) {
            // the host fires its own of these, in its own order
            host.post(() -> host.pipeline().fireUserEventTriggered(evt));
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        host.post(host::carriedWritabilityChanged);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        pass();
        host.post(() -> host.pipeline().fireExceptionCaught(cause));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        pass();
        host.post(host::carriedClosed);
    }

    private void pass() {
        if (batch.isEmpty()) {
            return;
        }
        List<Object> read = batch;
        batch = new ArrayList<>();
        long bytes = 0;
        for (Object msg : read) {
            bytes += msg instanceof ByteBuf ? ((ByteBuf) msg).readableBytes() : 0;
        }
        host.queue(bytes);
        if (!host.post(() -> host.deliver(read))) {
            read.forEach(ReferenceCountUtil::release); // the host's loop is gone, and with it the host
        }
    }
}
