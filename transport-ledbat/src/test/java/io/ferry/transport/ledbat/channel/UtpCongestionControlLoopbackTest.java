package io.ferry.transport.ledbat.channel;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Each TCP-family controller, selected with the {@code CONGESTION_CONTROL} option on both ends, moves
 * 4 MB over {@code utp://} on real loopback sockets intact (the listener answers with the SHA-256 of
 * what it received), and the connection really runs that controller. The leak detector runs at
 * paranoid level and must report nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UtpCongestionControlLoopbackTest {
    private static final int BYTES = 4 << 20;

    private Transports ferry;
    private final Queue<ChannelFuture> answeredCloses = new ConcurrentLinkedQueue<>();

    @BeforeAll
    void open() {
        ferry = Transports.create();
    }

    @AfterAll
    void close() {
        ferry.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"newreno", "cubic", "highspeed", "vegas", "westwood+", "bbr"})
    void movesFourMegabytesIntactOverLoopback(String name) throws Exception {
        ChannelOptions options = ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, name).build();
        Channel server = DigestServer.listen(ferry, "127.0.0.1", options, answeredCloses);
        try {
            byte[] payload = new byte[BYTES];
            new SplittableRandom(name.hashCode()).nextBytes(payload);
            CompletableFuture<byte[]> answer = new CompletableFuture<>();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            String uri = "utp://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort();
            Channel client = ferry.connect(uri, new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ByteBuf b = (ByteBuf) msg;
                    try {
                        byte[] bytes = new byte[b.readableBytes()];
                        b.readBytes(bytes);
                        got.writeBytes(bytes);
                    } finally {
                        b.release();
                    }
                    if (got.size() >= 32) {
                        answer.complete(got.toByteArray());
                    }
                }

                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    answer.completeExceptionally(cause);
                }
            }, options.toBuilder().set(ChannelOption.ALLOW_HALF_CLOSURE, true).build()).sync().channel();
            String running = client.eventLoop().submit(() -> ((UtpSocketChannel) client).connection().pathStats().congestionControl())
                    .get(10, TimeUnit.SECONDS);
            assertEquals(name, running);
            client.writeAndFlush(Unpooled.wrappedBuffer(payload));
            FerryChannels.shutdownOutput(client);
            byte[] digest = answer.get(90, TimeUnit.SECONDS);
            client.close().sync();
            assertArrayEquals(DigestServer.sha256().digest(payload), digest);
        } finally {
            for (ChannelFuture closed; (closed = answeredCloses.poll()) != null; ) {
                closed.await(10, TimeUnit.SECONDS);
            }
            server.close().sync();
        }
    }
}
