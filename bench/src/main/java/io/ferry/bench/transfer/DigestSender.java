package io.ferry.bench.transfer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

/**
 * Sending side of a transfer: announces the length, writes seeded pseudo-random content in chunks as
 * fast as writability allows while hashing it, and completes when the receiver's digest arrives:
 * with {@code true} if it equals its own.
 */
final class DigestSender extends ChannelInboundHandlerAdapter {

    private static final int BLOCK = 1 << 20;

    private final long size;
    private final int writeSize;
    private final ByteBuf block;
    private final MessageDigest sha256;
    private final CompletableFuture<Boolean> verified;
    private final byte[] reply = new byte[32];
    private int replied;
    private long queued;

    DigestSender(long size, int writeSize, long seed, CompletableFuture<Boolean> verified) {
        this.size = size;
        this.writeSize = Math.min(writeSize, BLOCK);
        this.verified = verified;
        byte[] content = new byte[BLOCK];
        new SplittableRandom(seed).nextBytes(content);
        this.block = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(content));
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.write(ctx.alloc().buffer(8).writeLong(size));
        pump(ctx);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        pump(ctx);
    }

    private void pump(ChannelHandlerContext ctx) {
        while (queued < size && ctx.channel().isWritable()) {
            int offset = (int) (queued % BLOCK);
            int n = (int) Math.min(Math.min(writeSize, BLOCK - offset), size - queued);
            ByteBuf slice = block.slice(offset, n);
            sha256.update(slice.nioBuffer());
            // Count before writing: a transport may fire channelWritabilityChanged from inside write(),
            // which re-enters this loop (uTP does when its send buffer frees up).
            queued += n;
            ctx.write(slice);
        }
        ctx.flush();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        try {
            int n = Math.min(buf.readableBytes(), reply.length - replied);
            buf.readBytes(reply, replied, n);
            replied += n;
            if (replied == reply.length) {
                verified.complete(Arrays.equals(reply, sha256.digest()));
            }
        } finally {
            ReferenceCountUtil.release(buf);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        verified.completeExceptionally(new IllegalStateException("connection closed before the receiver's digest arrived"));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        verified.completeExceptionally(cause);
        ctx.close();
    }
}
