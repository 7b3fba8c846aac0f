package io.ferry.transport.striped;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link StripedChannelOption#EAGER_HELLO}: the client's first bytes leave before the greeting, which is still checked. */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EagerHelloTest {

    private static final byte[] MAGIC = "FERRY-STRIPED/1\n".getBytes(StandardCharsets.US_ASCII);

    private Transports ferry;

    @BeforeEach
    void open() {
        ferry = Transports.create();
    }

    @AfterEach
    void close() {
        ferry.close();
    }

    private static ChannelOptions eager(int streams) {
        return ChannelOptions.builder().set(FerryChannelOption.STREAMS, streams).set(StripedChannelOption.EAGER_HELLO, true).build();
    }

    /** Collects what a channel reads; notes how it failed. */
    private static final class Collector extends ChannelInboundHandlerAdapter {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final CompletableFuture<Throwable> failure = new CompletableFuture<>();
        final int expected;
        final CompletableFuture<byte[]> all = new CompletableFuture<>();

        Collector(int expected) {
            this.expected = expected;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            synchronized (bytes) {
                byte[] copy = new byte[in.readableBytes()];
                in.readBytes(copy);
                bytes.write(copy, 0, copy.length);
                if (bytes.size() >= expected) {
                    all.complete(bytes.toByteArray());
                }
            }
            in.release();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failure.complete(cause);
        }
    }

    private Channel connect(int port, ChannelOptions options, Collector collector) throws InterruptedException {
        return ferry.connect("tcp://127.0.0.1:" + port, new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(collector);
            }
        }, options).sync().channel();
    }

    @Test
    void theFirstBytesLeaveBeforeTheGreetingAndAClientThatDoesNotReadIsNotTimedOut() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Collector collector = new Collector(4);
            // not reading, and a greeting timeout shorter than the test waits: the greeting is read all the same
            Channel client = connect(listener.getLocalPort(), eager(1).toBuilder().set(ChannelOption.AUTO_READ, false)
                    .set(FerryChannelOption.CONNECT_TIMEOUT, Duration.ofMillis(500)).build(), collector);
            client.writeAndFlush(Unpooled.wrappedBuffer("ping".getBytes(StandardCharsets.US_ASCII))).sync();
            try (Socket member = listener.accept()) {
                // a listener that has said nothing yet has the hello and the first bytes
                byte[] got = member.getInputStream().readNBytes(MAGIC.length + 20 + 4);
                assertArrayEquals(MAGIC, Arrays.copyOf(got, MAGIC.length), "the hello");
                assertEquals("ping", new String(got, MAGIC.length + 20, 4, StandardCharsets.US_ASCII), "the stream's first bytes");
                member.getOutputStream().write(MAGIC);
                member.getOutputStream().write("pong".getBytes(StandardCharsets.US_ASCII));
                member.getOutputStream().flush();
                // proving that nothing happens takes waiting past the 500 ms greeting timeout: a greeting left unread
                // would fail and close the channel by then
                assertFalse(client.closeFuture().await(1500, TimeUnit.MILLISECONDS),
                        "the greeting was read although the application does not read");
                assertTrue(client.isActive());
                client.read();
                assertEquals("pong", new String(collector.all.get(20, TimeUnit.SECONDS), StandardCharsets.US_ASCII),
                        "what follows the greeting is the stream");
                client.close().sync();
            }
        }
    }

    @Test
    void fourEagerStreamsCarryAStreamBothWaysThroughAStripedListener() throws Exception {
        byte[] data = new byte[4 << 20];
        ThreadLocalRandom.current().nextBytes(data);
        Channel server = ferry.listen("tcp://127.0.0.1:0", new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ctx.writeAndFlush(msg); // echo
                    }
                });
            }
        }, ChannelOptions.builder().set(FerryChannelOption.STREAMS, 4).build()).sync().channel();
        try {
            Collector collector = new Collector(data.length);
            Channel client = connect(((InetSocketAddress) server.localAddress()).getPort(), eager(4), collector);
            client.writeAndFlush(Unpooled.wrappedBuffer(data)).sync();
            assertArrayEquals(data, collector.all.get(30, TimeUnit.SECONDS));
            client.close().sync();
        } finally {
            server.close().sync();
        }
    }

    @Test
    void aListenerThatIsNotStripedFailsTheConnectedChannelQuotingItAndSeesAClose() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CompletableFuture<String> howItEnded = new CompletableFuture<>();
            Thread ssh = new Thread(() -> {
                try (Socket member = listener.accept()) {
                    member.getOutputStream().write("SSH-2.0-OpenSSH_9.2\r\n".getBytes(StandardCharsets.US_ASCII));
                    member.getInputStream().readAllBytes();
                    howItEnded.complete("closed");
                } catch (Exception e) {
                    howItEnded.complete(e.toString());
                }
            });
            ssh.setDaemon(true);
            ssh.start();
            Collector collector = new Collector(1);
            Channel client = connect(listener.getLocalPort(), eager(1), collector);
            Throwable cause = collector.failure.get(20, TimeUnit.SECONDS);
            NotStripedException e = assertInstanceOf(NotStripedException.class, cause);
            assertTrue(e.getMessage().contains("does not carry striped sessions: it answered 'SSH-2.0-OpenSSH_9.2"), e.getMessage());
            assertTrue(client.closeFuture().await(20, TimeUnit.SECONDS), "the channel closes");
            assertEquals(0, collector.bytes.size(), "nothing the listener said reached the application");
            // as a client that never sent its hello: a close, not a reset (a reset left user-space listeners
            // waiting out their linger for a peer that had gone)
            assertEquals("closed", howItEnded.get(20, TimeUnit.SECONDS), "how the listener's connection ended");
        }
    }

    @Test
    void aSilentListenerFailsTheConnectedChannelOnceTheGreetingIsLate() throws Exception {
        CompletableFuture<String> heard = new CompletableFuture<>();
        Channel plain = ferry.listen("tcp://127.0.0.1:0", new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf in = (ByteBuf) msg;
                        heard.complete(in.toString(StandardCharsets.US_ASCII));
                        in.release();
                    }
                });
            }
        }).sync().channel();
        try {
            Collector collector = new Collector(1);
            Channel client = connect(((InetSocketAddress) plain.localAddress()).getPort(), eager(1).toBuilder()
                    .set(FerryChannelOption.CONNECT_TIMEOUT, Duration.ofMillis(500)).set(FerryChannelOption.LINGER, Duration.ZERO).build(),
                    collector);
            assertTrue(heard.get(20, TimeUnit.SECONDS).startsWith("FERRY-STRIPED/1\n"), "the hello went at once");
            ConnectTimeoutException e = assertInstanceOf(ConnectTimeoutException.class, collector.failure.get(20, TimeUnit.SECONDS).getCause());
            assertTrue(e.getMessage().contains("no striping greeting"), e.getMessage());
            assertTrue(client.closeFuture().await(20, TimeUnit.SECONDS), "the channel closes");
        } finally {
            plain.close().sync();
        }
    }
}
