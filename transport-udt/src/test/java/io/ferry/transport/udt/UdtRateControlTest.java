package io.ferry.transport.udt;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.ferry.transport.conformance.LossyUdpRelay;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetSocketAddress;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code CONGESTION_CONTROL=ferry} (the default) against {@code udt}, over real UDT sockets: which
 * control runs, that a ceiling holds, and that 25 % random loss each way does not stop a transfer.
 */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class UdtRateControlTest {

    private Transports ferry;

    @BeforeEach
    void open() {
        ferry = Transports.create();
    }

    @AfterEach
    void close() {
        if (ferry != null) {
            ferry.close();
        }
    }

    @Test
    void ferryIsTheDefaultAndUdtSelectsUdt4sOwnControl() throws Exception {
        for (String cc : new String[]{null, "udt", "ferry"}) {
            ChannelOptions options = cc == null ? ChannelOptions.empty()
                    : ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, cc).build();
            Received received = new Received(64 << 10);
            Channel server = ferry.listen("udt://127.0.0.1:0", initializer(received), options).sync().channel();
            UdtSocketChannel client = (UdtSocketChannel) connect(server, options);
            client.writeAndFlush(Unpooled.wrappedBuffer(new byte[64 << 10])).sync();
            received.all.get(20, TimeUnit.SECONDS);
            String expected = "udt".equals(cc) ? io.ferry.transport.udt.proto.cc.UdtDaimd.NAME : io.ferry.transport.udt.proto.cc.FerryRateControl.NAME;
            String running = client.eventLoop().submit(() -> client.connection().congestionControl().name()).get();
            assertEquals(expected, running, (cc == null ? "the default" : cc) + " runs " + expected);
            client.close().sync();
            server.close().sync();
        }
    }

    @Test
    void aCeilingSetByTheUserHoldsUnderFerry() throws Exception {
        long ceiling = 2_000_000;
        ChannelOptions options = ChannelOptions.builder().set(UdtChannelOption.MAX_BANDWIDTH, ceiling).build();
        int size = 3_000_000;
        Received received = new Received(size);
        Channel server = ferry.listen("udt://127.0.0.1:0", initializer(received), options).sync().channel();
        UdtSocketChannel client = (UdtSocketChannel) connect(server, options);
        assertEquals(ceiling, client.config().getOption(UdtChannelOption.MAX_BANDWIDTH), "reads back as the ceiling");
        long start = System.nanoTime();
        client.writeAndFlush(Unpooled.wrappedBuffer(new byte[size]));
        long highest = 0;
        // samples the pace every 20 ms until the transfer's own completion ends the loop
        while (!received.all.isDone() && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(60)) {
            highest = Math.max(highest, client.eventLoop().submit(() -> {
                long r = client.connection().counters().pacingRateBytesPerSecond();
                return r == Long.MAX_VALUE ? 0 : r;
            }).get());
            Thread.sleep(20);
        }
        received.all.get(1, TimeUnit.SECONDS);
        double seconds = (System.nanoTime() - start) / 1e9;
        assertTrue(highest <= ceiling, "the pace stayed at or below the ceiling: " + highest);
        // 3 MB of payload at 2 MB/s of packets (headers counted) needs at least 1.5 s; a machine can only be slower
        assertTrue(seconds >= 1.4, "3 MB took " + seconds + " s at a 2 MB/s ceiling");
        client.close().sync();
        server.close().sync();
    }

    @Test
    void aTransferThroughTwentyFivePercentLossEachWayArrivesIntact() throws Exception {
        int size = 2 << 20;
        byte[] payload = new byte[size];
        new SplittableRandom(12).nextBytes(payload);
        Received received = new Received(size);
        // the receiving end closes abortively (LINGER 0): its own end of stream would wait on the lossy path
        Channel server = ferry.listen("udt://127.0.0.1:0", initializer(received),
                ChannelOptions.builder().set(FerryChannelOption.LINGER, java.time.Duration.ZERO).build()).sync().channel();
        try (LossyUdpRelay relay = new LossyUdpRelay((InetSocketAddress) server.localAddress(), 0.25, 5, 29)) {
            Channel client = ferry.connect("udt://127.0.0.1:" + relay.address().getPort(), initializer(new Received(0)),
                    ChannelOptions.builder().set(FerryChannelOption.CONNECT_TIMEOUT, java.time.Duration.ofSeconds(30)).build())
                    .sync().channel();
            client.writeAndFlush(Unpooled.wrappedBuffer(payload));
            assertArrayEquals(payload, received.all.get(120, TimeUnit.SECONDS), "2 MiB arrived intact");
            assertTrue(relay.dropped() > 0, "the relay dropped packets: " + relay.dropped());
            UdtSocketChannel udt = (UdtSocketChannel) client;
            assertEquals("ferry", udt.eventLoop().submit(() -> udt.connection().congestionControl().name()).get(), "Ferry's control paced it");
            // what is measured here is the transfer; a graceful close through 25 % loss can outlast its
            // linger waiting for the acknowledgement of the end of stream (the close tests cover closing)
            FerryChannels.abort(client).sync();
        }
        server.close().sync();
    }

    private Channel connect(Channel server, ChannelOptions options) throws InterruptedException {
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        return ferry.connect("udt://127.0.0.1:" + port, initializer(new Received(0)), options).sync().channel();
    }

    private static ChannelInitializer<Channel> initializer(Received received) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(received);
            }
        };
    }
}
