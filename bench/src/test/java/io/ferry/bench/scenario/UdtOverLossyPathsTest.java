package io.ferry.bench.scenario;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.netns.RootAccess;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * UDT over the lossy paths that stalled it (issue 33): delivery keeps going at 1 % loss behind a deep
 * queue, and a close right after the last write completes through 25 % loss within its linger. Real
 * namespaces and the TUN emulator; root only (skipped with the reason otherwise). The bounds are loose
 * (the failures they catch were 15-20 s stalls and a close past 30 s); the figures are in bench's README.
 */
class UdtOverLossyPathsTest {

    @BeforeAll
    static void needsRootAndUdt() throws Exception {
        RootAccess.missing().ifPresent(reason -> System.out.println("SKIPPED UdtOverLossyPathsTest: " + reason));
        assumeTrue(RootAccess.available());
        try (io.ferry.transport.Transports t = io.ferry.transport.Transports.create()) {
            assumeTrue(t.transportNames().contains("udt"), "udt is not installed");
        }
    }

    @Test
    void deliveryNeverStopsForSecondsAtOnePercentLossBehindADeepQueue() throws Exception {
        long bits = 100_000_000;
        LinkModel link = LinkModel.delay(Duration.ofMillis(10))
                .withRate(bits, LinkModel.queueFor(bits, Duration.ofMillis(150))).withLoss(0.01);
        DeliveryGaps.Result r = DeliveryGaps.run("udt", link, Duration.ofSeconds(15));
        System.out.println("UDT at 1 % loss, 20 ms, 150 ms queue: " + r);
        // before the window bound: gaps of 5-20 s, several per minute. With it and the repair timer 0.3-0.4 s
        // here; before the repair timer fresh CI machines on JDK 25 saw one 3.4 s gap, and two of 1-1.9 s, in
        // the start-up's overflow (UDT4 repeats no NAK; bench's README). This bounds the regression it exists
        // for, not issue 33's "no gap over 1 s", a figure for the benchmark.
        assertTrue(r.longestGapSeconds() < 5 && r.gapsOverOneSecond() <= 3, () -> "delivery stalled: " + r);
        assertTrue(r.meanMbitPerSecond() > 5, () -> "hardly anything delivered: " + r);
    }

    @Test
    void aCloseRightAfterTheLastWriteCompletesThroughQuarterLossWithinItsLinger() throws Exception {
        LinkModel link = LinkModel.delay(Duration.ofMillis(25)).withLoss(0.25);
        int size = 1 << 20;
        try (TestBed bed = TestBed.emulated(link)) {
            AtomicLong received = new AtomicLong();
            CountDownLatch ended = new CountDownLatch(1);
            java.util.concurrent.atomic.AtomicReference<String> serverSaw = new java.util.concurrent.atomic.AtomicReference<>("nothing wrong");
            java.util.concurrent.atomic.AtomicReference<Object> serverLast = new java.util.concurrent.atomic.AtomicReference<>();
            Channel listener = bed.server().call(() -> bed.server().transports().listen("udt://" + bed.serverAddress() + ":0",
                    new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    received.addAndGet(((ByteBuf) msg).readableBytes());
                                    ReferenceCountUtil.release(msg);
                                    serverLast.set(io.ferry.transport.FerryChannels.statistics(ctx.channel()));
                                }

                                @Override
                                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                    serverSaw.set(String.valueOf(cause));
                                    ctx.close();
                                }

                                @Override
                                public void channelInactive(ChannelHandlerContext ctx) {
                                    ended.countDown();
                                }
                            });
                        }
                    }).sync().channel());
            int port = ((InetSocketAddress) listener.localAddress()).getPort();
            Channel client = bed.client().call(() -> bed.client().transports()
                    .connect("udt://" + bed.serverAddress() + ":" + port, new ChannelInboundHandlerAdapter()).sync().channel());
            client.writeAndFlush(Unpooled.wrappedBuffer(new byte[size]));
            long start = System.nanoTime();
            ChannelFuture closed = client.close();
            assertTrue(closed.await(45, TimeUnit.SECONDS), "the close never completed");
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("UDT close through 25 %% loss, 50 ms RTT, 1 MiB just written: %.1f s, %s%n", seconds,
                    closed.isSuccess() ? "every byte acknowledged" : closed.cause());
            assertTrue(closed.isSuccess(), () -> "the close failed: " + closed.cause() + "; the server side received "
                    + received.get() + " bytes, saw " + serverSaw.get() + ", last stood at " + serverLast.get());
            assertTrue(ended.await(30, TimeUnit.SECONDS), "the receiver never saw the end");
            assertEquals(size, received.get());
            listener.close().sync();
        }
    }
}
