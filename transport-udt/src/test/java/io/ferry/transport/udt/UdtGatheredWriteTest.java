package io.ferry.transport.udt;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.security.MessageDigest;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * Small buffers are gathered into one send while large ones go in place: a stream of both, through a
 * send buffer so small that large writes are taken in parts, arrives byte for byte. (A gathered write
 * once copied a partly sent buffer from its start again: the outbound buffer caches its NIO view.)
 */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UdtGatheredWriteTest {

    @Test
    void largeAndSmallWritesThroughATinySendBufferArriveIntact() throws Exception {
        MessageDigest sent = MessageDigest.getInstance("SHA-256");
        MessageDigest received = MessageDigest.getInstance("SHA-256");
        SplittableRandom random = new SplittableRandom(11);
        long total = 0;
        ChannelOptions tiny = ChannelOptions.builder()
                .set(UdtChannelOption.UDT_SEND_BUFFER, 256 * 1024).set(UdtChannelOption.UDT_RECEIVE_BUFFER, 256 * 1024).build();
        try (Transports ferry = Transports.create()) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            AtomicLong expected = new AtomicLong(Long.MAX_VALUE);
            AtomicLong got = new AtomicLong();
            Channel server = ferry.listen("udt://127.0.0.1:0", new ChannelInitializer<>() {
                @Override
                protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ByteBuf b = (ByteBuf) msg;
                            byte[] bytes = new byte[b.readableBytes()];
                            b.readBytes(bytes);
                            ReferenceCountUtil.release(msg);
                            received.update(bytes);
                            if (got.addAndGet(bytes.length) >= expected.get()) {
                                done.complete(null);
                            }
                        }
                    });
                }
            }, tiny).sync().channel();
            Channel client = ferry.connect("udt://127.0.0.1:" + ((java.net.InetSocketAddress) server.localAddress()).getPort(),
                    new ChannelInboundHandlerAdapter(), tiny).sync().channel();
            for (int i = 0; i < 120; i++) {
                int size = i % 3 == 0 ? 300_000 + random.nextInt(200_000) : 1 + random.nextInt(6000);
                byte[] bytes = new byte[size];
                random.nextBytes(bytes);
                sent.update(bytes);
                total += size;
                client.write(Unpooled.wrappedBuffer(bytes));
                if (i % 4 == 3) {
                    client.flush();
                }
            }
            client.flush();
            expected.set(total);
            if (got.get() >= total) {
                done.complete(null);
            }
            done.get(90, TimeUnit.SECONDS);
            assertArrayEquals(sent.digest(), received.digest(), "the stream arrived byte for byte");
            client.close().sync();
            server.close().sync();
        }
    }
}
