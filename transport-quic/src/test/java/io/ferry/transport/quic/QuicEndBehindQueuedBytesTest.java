package io.ferry.transport.quic;

import io.ferry.transport.Bootstrapping;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.Transports;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two channels on one QUIC connection write at once and close at once. The codec queues what quiche would not
 * take yet (the first channel's write used the connection's window the second one's capacity still counted) and
 * sends a stream's FIN ahead of that queue if asked to end the stream while it waits: the second channel's peer
 * then saw its stream end short. The FIN must go behind every byte handed to the stream.
 */
class QuicEndBehindQueuedBytesTest {

    @Test
    void aStreamEndsBehindTheBytesTheCodecQueuedForIt() throws Exception {
        try (Transports ferry = Transports.create()) {
            Bootstrapping quic = ferry.bootstrapping("quic", ChannelOptions.builder()
                    .set(FerryChannelOption.SHARED_CONNECTION, "end-behind-queue").build());
            BlockingQueue<String> ends = new LinkedBlockingQueue<>(); // each child, at its end: "bytes digest"
            Channel server = quic.serverBootstrap().childHandler(new io.netty.channel.ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(new SimpleChannelInboundHandler<ByteBuf>() {
                        final MessageDigest sha = sha256();
                        long seen;

                        @Override
                        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                            seen += msg.readableBytes();
                            sha.update(msg.nioBuffer());
                        }

                        @Override
                        public void channelInactive(ChannelHandlerContext ctx) {
                            ends.add(describe(seen, sha.digest()));
                        }
                    });
                }
            }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            Channel a = quic.bootstrap().handler(new io.netty.channel.ChannelInboundHandlerAdapter()).connect(server.localAddress()).sync().channel();
            Channel b = quic.bootstrap().handler(new io.netty.channel.ChannelInboundHandlerAdapter()).connect(server.localAddress()).sync().channel();
            assertSame(a.eventLoop(), b.eventLoop(), "the channels of one QUIC connection share its loop");
            // One task on the connection's loop. Each channel writes what its stream says it can take now; the
            // stream's figure includes the connection's window, which a's write then uses up: the codec queues
            // all of b's write, and b's close asks for the FIN while it waits there.
            CompletableFuture<byte[][]> written = new CompletableFuture<>();
            a.eventLoop().execute(() -> {
                List<QuicSocketChannel> both = List.of((QuicSocketChannel) a, (QuicSocketChannel) b);
                int n = (int) Math.min(both.get(0).stream().bytesBeforeUnwritable(), both.get(1).stream().bytesBeforeUnwritable());
                byte[][] payloads = {payload(0, n), payload(1, n)};
                for (int i = 0; i < 2; i++) {
                    both.get(i).writeAndFlush(Unpooled.wrappedBuffer(payloads[i]));
                }
                a.close();
                b.close();
                written.complete(payloads);
            });
            byte[][] payloads = written.get(10, TimeUnit.SECONDS);
            assertTrue(payloads[0].length > 0, "the streams could take bytes");
            Set<String> expected = new TreeSet<>();
            Set<String> seen = new TreeSet<>();
            for (byte[] p : payloads) {
                expected.add(describe(p.length, sha256().digest(p)));
                String end = ends.poll(30, TimeUnit.SECONDS);
                assertNotNull(end, "both of the listener's connections ended; so far " + seen);
                seen.add(end);
            }
            assertEquals(expected, seen, "what each channel's peer read before its stream's end: bytes and SHA-256");
            assertTrue(a.closeFuture().await(20, TimeUnit.SECONDS) && a.closeFuture().isSuccess(), "a's close: " + a.closeFuture().cause());
            assertTrue(b.closeFuture().await(20, TimeUnit.SECONDS) && b.closeFuture().isSuccess(), "b's close: " + b.closeFuture().cause());
            server.close().sync();
        }
    }

    private static byte[] payload(int id, int size) {
        byte[] p = new byte[size];
        new SplittableRandom(id).nextBytes(p);
        p[0] = (byte) id;
        return p;
    }

    private static String describe(long bytes, byte[] sha) {
        return bytes + " bytes " + java.util.HexFormat.of().formatHex(sha);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
