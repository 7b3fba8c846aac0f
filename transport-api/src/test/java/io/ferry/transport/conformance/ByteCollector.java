package io.ferry.transport.conformance;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.ReferenceCountUtil;

import java.io.ByteArrayOutputStream;
import java.util.concurrent.CompletableFuture;

/** Collects bytes until {@code wanted} have arrived; also records end-of-input and closing. */
final class ByteCollector extends ChannelInboundHandlerAdapter {
    private final int wanted;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final CompletableFuture<byte[]> done = new CompletableFuture<>();
    final CompletableFuture<Void> inputShutdown = new CompletableFuture<>();
    final CompletableFuture<Throwable> failure = new CompletableFuture<>();

    ByteCollector(int wanted) {
        this.wanted = wanted;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            ByteBuf buf = (ByteBuf) msg;
            buf.readBytes(bytes, buf.readableBytes());
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        } finally {
            ReferenceCountUtil.release(msg);
        }
        if (bytes.size() >= wanted && !done.isDone()) {
            done.complete(bytes.toByteArray());
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
        inputShutdown.complete(null);
        done.completeExceptionally(new AssertionError("connection ended after " + bytes.size() + " of " + wanted + " bytes"));
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        failure.complete(cause);
        done.completeExceptionally(cause);
        ctx.close();
    }

    CompletableFuture<byte[]> done() {
        return done;
    }
}
