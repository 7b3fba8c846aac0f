package io.ferry.transport.udt;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.ReferenceCountUtil;

import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records what a channel receives: each buffer, the bytes in order, end of input, errors and the end. */
final class Received extends ChannelInboundHandlerAdapter {
    final List<byte[]> buffers = new CopyOnWriteArrayList<>();
    final List<Throwable> errors = new CopyOnWriteArrayList<>();
    final CompletableFuture<Void> inputShutdown = new CompletableFuture<>();
    final CompletableFuture<Void> inactive = new CompletableFuture<>();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final int wanted;
    final CompletableFuture<byte[]> all = new CompletableFuture<>();

    Received(int wanted) {
        this.wanted = wanted;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            byte[] b = ByteBufUtil.getBytes((ByteBuf) msg);
            buffers.add(b);
            synchronized (bytes) {
                bytes.writeBytes(b);
                if (bytes.size() >= wanted) {
                    all.complete(bytes.toByteArray());
                }
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            inputShutdown.complete(null);
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        inactive.complete(null);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        errors.add(cause);
        ctx.close();
    }
}
