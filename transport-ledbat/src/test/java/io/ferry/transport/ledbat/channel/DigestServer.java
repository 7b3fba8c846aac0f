package io.ferry.transport.ledbat.channel;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.ReferenceCountUtil;

import java.security.MessageDigest;
import java.util.Queue;

/**
 * A uTP listener for tests: each connection digests everything it receives and, at the end of the
 * stream, answers with the SHA-256 and closes; the close futures of those answers are collected, so a
 * test can wait until its peer acknowledged them before it takes the path away.
 */
final class DigestServer {

    private DigestServer() {
    }

    static Channel listen(Transports ferry, String host, ChannelOptions options, Queue<ChannelFuture> answeredCloses)
            throws InterruptedException {
        return ferry.listen("utp://" + host + ":0", new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    final MessageDigest digest = sha256();

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        digest.update(((ByteBuf) msg).nioBuffer());
                        ReferenceCountUtil.release(msg);
                    }

                    @Override
                    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                        if (evt instanceof ChannelInputShutdownEvent) {
                            ctx.writeAndFlush(Unpooled.wrappedBuffer(digest.digest()))
                                    .addListener(f -> answeredCloses.add(ctx.channel().close()));
                        }
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        ctx.close();
                    }
                });
            }
        }, options.toBuilder().set(ChannelOption.ALLOW_HALF_CLOSURE, true).build()).sync().channel();
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
