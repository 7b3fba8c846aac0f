package io.ferry.transport.hosted;

import io.ferry.transport.Bootstrapping;
import io.ferry.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An application that shuts its event loops down without closing its channels first gets what Netty's own
 * sockets give it: every hosted channel and listener on those loops closes, its handlers see the channel go
 * inactive, the carried connections and the carried listener close, and bytes that waited for a pipeline
 * that was not reading are released (they leaked, and the peer kept a live connection, before).
 */
class HostedLoopShutdownTest {

    private static final int SENT = 256 << 10;

    @Test
    void shuttingTheHostLoopsDownClosesHostedChannelsListenersAndWhatTheyCarry() throws Exception {
        EventLoopGroup hosts = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        boolean shutDown = false;
        try (Transports ferry = Transports.create()) {
            Bootstrapping tcp = ferry.bootstrapping("tcp");
            CompletableFuture<HostedSocketChannel> accepted = new CompletableFuture<>();
            CountDownLatch inactive = new CountDownLatch(2);
            Channel server = new ServerBootstrap().group(hosts).channelFactory(HostedChannels.listeners(tcp))
                    .childOption(ChannelOption.AUTO_READ, false) // never reads: what arrives waits in the channel
                    .childHandler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelActive(ChannelHandlerContext ctx) {
                            accepted.complete((HostedSocketChannel) ctx.channel());
                        }

                        @Override
                        public void channelInactive(ChannelHandlerContext ctx) {
                            inactive.countDown();
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            Channel client = new Bootstrap().group(hosts).channelFactory(HostedChannels.clients(tcp))
                    .handler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelInactive(ChannelHandlerContext ctx) {
                                    inactive.countDown();
                                }
                            });
                        }
                    })
                    .connect(server.localAddress()).sync().channel();
            client.writeAndFlush(Unpooled.wrappedBuffer(new byte[SENT])).sync();
            HostedSocketChannel child = accepted.get(10, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (child.queuedBytes() < SENT && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(SENT, child.queuedBytes(), "the sent bytes crossed and wait for the child's pipeline");

            hosts.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            shutDown = true;

            assertTrue(inactive.await(5, TimeUnit.SECONDS), "both connections' handlers saw them go inactive");
            assertFalse(server.isOpen(), "the listener closed with its loop");
            assertFalse(child.isOpen());
            assertFalse(client.isOpen());
            assertEquals(0, child.queuedBytes(), "what waited for the pipeline was released");
            for (Channel carried : new Channel[]{child.carried(), ((HostedSocketChannel) client).carried(),
                    ((HostedServerChannel) server).carried()}) {
                assertTrue(carried.closeFuture().await(5, TimeUnit.SECONDS), "closed with its host: " + carried);
            }
        } finally {
            if (!shutDown) {
                hosts.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            }
        }
    }
}
