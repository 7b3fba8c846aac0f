package io.ferry.transport.udt;

import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.ferry.transport.conformance.LossyUdpRelay;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetSocketAddress;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A close right after the last write, through a quarter of the datagrams lost each way: every byte arrives
 * and the close succeeds. Both ends are done here at about the same moment, and the side that closes
 * last holds the other's data whose acknowledgement may have been lost; its shutdown, which carries no
 * acknowledgement, must wait for the ACK2 of its final ACK, or the other side takes a delivered stream for
 * lost ("the peer shut down before acknowledging everything": 2 runs in 6 in bench's namespace test).
 */
@ExtendWith(LeakDetectionExtension.class)
class UdtLossyCloseTest {
    private Transports ferry;

    @BeforeEach
    void open() {
        ferry = Transports.create();
    }

    @AfterEach
    void close() {
        ferry.close();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {3, 5, 8})
    void aCloseRightAfterTheLastWriteThroughQuarterLossSucceedsWithEveryByteDelivered(long seed) throws Exception {
        int size = 1 << 20;
        byte[] payload = new byte[size];
        new SplittableRandom(seed).nextBytes(payload);
        Received received = new Received(size);
        Channel server = ferry.listen("udt://127.0.0.1:0", new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(received);
            }
        }).sync().channel();
        try (LossyUdpRelay relay = new LossyUdpRelay((InetSocketAddress) server.localAddress(), 0.25, 25, seed)) {
            Channel client = ferry.connect("udt://127.0.0.1:" + relay.address().getPort(), new Received(0)).sync().channel();
            client.writeAndFlush(Unpooled.wrappedBuffer(payload));
            ChannelFuture closed = client.close();
            assertTrue(closed.await(45, TimeUnit.SECONDS), "the close never completed");
            assertTrue(closed.isSuccess(), () -> "the close failed: " + closed.cause() + "; the server holds "
                    + received.buffers.stream().mapToInt(b -> b.length).sum() + " of " + size + " bytes");
            assertArrayEquals(payload, received.all.get(30, TimeUnit.SECONDS), "1 MiB arrived intact");
            received.inactive.get(30, TimeUnit.SECONDS);
        } finally {
            server.close().sync();
        }
    }
}
