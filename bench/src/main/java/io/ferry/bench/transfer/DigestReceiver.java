package io.ferry.bench.transfer;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Receiving side of a transfer: reads an 8-byte length, then that many bytes while hashing them with
 * SHA-256, and answers with the 32-byte digest. More bytes than announced close the connection.
 */
final class DigestReceiver extends ChannelInboundHandlerAdapter {

    private final AtomicLong progress;
    private final AtomicReference<String> failure;
    private final MessageDigest sha256;
    private final byte[] scratch = new byte[64 * 1024];
    private long expected = -1;
    private long header;
    private int headerBytes;
    private long received;

    DigestReceiver(AtomicLong progress, AtomicReference<String> failure) {
        this.progress = progress;
        this.failure = failure;
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        try {
            while (expected < 0 && buf.isReadable()) {
                header = (header << 8) | buf.readUnsignedByte();
                if (++headerBytes == 8) {
                    expected = header;
                }
            }
            int n = buf.readableBytes();
            if (n == 0) {
                checkDone(ctx);
                return;
            }
            if (received + n > expected) {
                failure.compareAndSet(null, "receiver got " + (received + n - expected) + " more bytes than the " + expected + " announced");
                ctx.close();
                return;
            }
            while (buf.isReadable()) {
                int chunk = Math.min(scratch.length, buf.readableBytes());
                buf.readBytes(scratch, 0, chunk);
                sha256.update(scratch, 0, chunk);
            }
            received += n;
            progress.addAndGet(n);
            checkDone(ctx);
        } finally {
            ReferenceCountUtil.release(buf);
        }
    }

    private void checkDone(ChannelHandlerContext ctx) {
        if (expected >= 0 && received == expected) {
            ctx.writeAndFlush(ctx.alloc().buffer(32).writeBytes(sha256.digest()));
            expected = Long.MAX_VALUE;
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        failure.compareAndSet(null, "receiver: " + Transfer.describe(cause));
        ctx.close();
    }
}
