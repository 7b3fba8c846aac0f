package io.ferry.transport.hosted;

import io.ferry.transport.Bootstrapping;
import io.ferry.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A host that reads slowly pauses the carried connection's read-ahead at {@link HostedSocketChannel#PAUSE_AT}
 * and resumes it below {@link HostedSocketChannel#RESUME_AT}, again and again over one transfer; every byte still
 * arrives, in order. The pause is decided on the carried connection's loop and the resume posted back to
 * it, so a resume can neither be missed nor overtake its pause (a lost one would stall the transfer).
 */
class HostedPauseResumeTest {

    private static final int TOTAL = 96 << 20;
    private static final int CHUNK = 64 << 10;

    @Test
    void aSlowHostPausesAndResumesTheCarriedConnectionAndGetsEveryByteInOrder() throws Exception {
        EventLoopGroup hosts = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        try (Transports ferry = Transports.create()) {
            Bootstrapping tcp = ferry.bootstrapping("tcp");
            CompletableFuture<Long> received = new CompletableFuture<>();
            AtomicInteger pausedSeen = new AtomicInteger();
            Channel server = new ServerBootstrap().group(hosts).channelFactory(HostedChannels.listeners(tcp))
                    .childOption(ChannelOption.AUTO_READ, false)
                    .childHandler(new SlowReader(received, pausedSeen))
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            Channel client = new Bootstrap().group(hosts).channelFactory(HostedChannels.clients(tcp))
                    .handler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                        }
                    })
                    .connect(server.localAddress()).sync().channel();
            writeAll(client);
            assertEquals(TOTAL, received.get(120, TimeUnit.SECONDS));
            System.out.println("HostedPauseResumeTest: the reader saw " + pausedSeen.get() + " pauses in " + (TOTAL >> 20) + " MiB");
            // Each pause must be resumed for the transfer to finish; three make two full cycles. How many the
            // reader sees depends on the machine's timing (4 in a CI run at 48 MiB, dozens here).
            assertTrue(pausedSeen.get() >= 3, "the carried connection paused " + pausedSeen.get()
                    + " times: the test did not reach the path it checks");
            client.close().sync();
            server.close().sync();
        } finally {
            hosts.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /** Writes {@link #TOTAL} bytes counting 0, 1, 2 ... (mod 251), as writability allows. */
    private static void writeAll(Channel client) throws InterruptedException {
        int[] next = {0};
        CompletableFuture<Void> done = new CompletableFuture<>();
        Runnable pump = new Runnable() {
            @Override
            public void run() {
                while (next[0] < TOTAL && client.isWritable()) {
                    ByteBuf chunk = Unpooled.buffer(CHUNK);
                    for (int i = 0; i < CHUNK; i++) {
                        chunk.writeByte((next[0] + i) % 251);
                    }
                    next[0] += CHUNK;
                    client.write(chunk).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
                }
                client.flush();
                if (next[0] >= TOTAL) {
                    done.complete(null);
                }
            }
        };
        client.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                if (ctx.channel().isWritable()) {
                    pump.run();
                }
            }
        });
        client.eventLoop().execute(pump);
        done.join();
    }

    /** Reads (auto-read off) only while the carried connection is paused, checks the byte pattern, and counts the pauses. */
    private static final class SlowReader extends ChannelInboundHandlerAdapter {
        private final CompletableFuture<Long> received;
        private final AtomicInteger pausedSeen;
        private long count;
        private boolean wasPaused;

        SlowReader(CompletableFuture<Long> received, AtomicInteger pausedSeen) {
            this.received = received;
            this.pausedSeen = pausedSeen;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.read();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                byte[] bytes = new byte[in.readableBytes()]; // one access: the paranoid leak detector records each
                in.readBytes(bytes);
                for (byte b : bytes) {
                    int expected = (int) (count % 251);
                    int actual = b & 0xff;
                    if (actual != expected) {
                        received.completeExceptionally(new AssertionError("byte " + count + " was " + actual + ", not " + expected));
                        ctx.close();
                        return;
                    }
                    count++;
                }
            } finally {
                ReferenceCountUtil.release(in);
            }
            if (count == TOTAL) {
                received.complete(count);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            readOncePaused(ctx, 0);
        }

        /**
         * Reads again once the carried connection has paused (its read-ahead is full), or after 20 ms (the
         * transfer's tail, too short to fill it): each pause is then followed by a resume this reader causes.
         */
        private void readOncePaused(ChannelHandlerContext ctx, int waited) {
            boolean paused = !((HostedSocketChannel) ctx.channel()).carried().config().isAutoRead();
            if (paused || waited >= 20) {
                if (paused && !wasPaused) {
                    pausedSeen.incrementAndGet();
                }
                wasPaused = paused;
                ctx.read();
                return;
            }
            wasPaused = false;
            ctx.executor().schedule(() -> readOncePaused(ctx, waited + 1), 1, TimeUnit.MILLISECONDS);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            received.completeExceptionally(cause);
            ctx.close();
        }
    }
}
