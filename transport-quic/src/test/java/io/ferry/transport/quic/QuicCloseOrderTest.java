package io.ferry.transport.quic;

import io.ferry.transport.Bootstrapping;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Closing both ends of an echo, server first then client, as Netty's SocketEchoTest does: both closes succeed. */
class QuicCloseOrderTest {

    @Test
    void serverThenClientCloseBothSucceedAfterAnEcho() throws Exception {
        try (Transports ferry = Transports.create()) {
            Bootstrapping quic = ferry.bootstrapping("quic", ChannelOptions.empty());
            AtomicReference<Channel> child = new AtomicReference<>();
            int total = 1 << 20;
            AtomicInteger echoed = new AtomicInteger();
            java.util.concurrent.CompletableFuture<Integer> allEchoed = new java.util.concurrent.CompletableFuture<>();
            Channel server = quic.serverBootstrap().childHandler(new SimpleChannelInboundHandler<ByteBuf>() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    child.set(ctx.channel());
                }

                @Override
                protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                    ctx.writeAndFlush(msg.retain());
                }
            }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            Channel client = quic.bootstrap().handler(new SimpleChannelInboundHandler<ByteBuf>() {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                    if (echoed.addAndGet(msg.readableBytes()) >= total) {
                        allEchoed.complete(echoed.get());
                    }
                }
            }).connect(server.localAddress()).sync().channel();
            for (int i = 0; i < total; i += 65536) {
                client.writeAndFlush(Unpooled.wrappedBuffer(new byte[65536]));
            }
            assertEquals(total, allEchoed.get(20, java.util.concurrent.TimeUnit.SECONDS), "every byte came back");
            assertTrue(child.get().close().await().isSuccess(), "server close: " + child.get().closeFuture().cause());
            var c = client.close().await();
            assertTrue(c.isSuccess(), "client close: " + c.cause());
            server.close().sync();
        }
    }
}
