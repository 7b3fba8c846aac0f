package io.ferry.transport.conformance;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

import java.security.MessageDigest;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * Reads exactly {@code expected} bytes, digesting them, then completes; more bytes, or an end of the
 * connection before all arrived, fail it. An optional action runs on completion (e.g. reply with the digest).
 */
final class StreamSink extends ChannelInboundHandlerAdapter {
    private final long expected;
    private final MessageDigest digest = PatternStream.sha256();
    private final CompletableFuture<byte[]> received = new CompletableFuture<>();
    private final BiConsumer<ChannelHandlerContext, byte[]> onComplete;
    private volatile long count;

    StreamSink(long expected, BiConsumer<ChannelHandlerContext, byte[]> onComplete) {
        this.expected = expected;
        this.onComplete = onComplete;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf)) {
            ctx.fireChannelRead(msg);
            return;
        }
        ByteBuf buf = (ByteBuf) msg;
        try {
            int n = buf.readableBytes();
            if (count + n > expected) {
                received.completeExceptionally(new AssertionError("received " + (count + n) + " bytes, expected " + expected));
                return;
            }
            if (buf.hasArray()) {
                digest.update(buf.array(), buf.arrayOffset() + buf.readerIndex(), n);
            } else {
                digest.update(buf.nioBuffer());
            }
            count += n;
            if (count == expected) {
                byte[] d = digest.digest();
                received.complete(d);
                onComplete.accept(ctx, d);
            }
        } finally {
            ReferenceCountUtil.release(buf);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        received.completeExceptionally(new AssertionError("connection ended after " + count + " of " + expected + " bytes"));
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        received.completeExceptionally(cause);
        ctx.close();
    }

    CompletableFuture<byte[]> received() {
        return received;
    }

    long count() {
        return count;
    }
}
