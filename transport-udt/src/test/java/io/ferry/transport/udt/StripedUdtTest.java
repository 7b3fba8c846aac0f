package io.ferry.transport.udt;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.ferry.transport.striped.StripedChannel;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A striped channel over four UDT connections carries a stream both ways intact (the whole suite runs
 * striped too: {@link StripedUdtConformanceTest}).
 */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StripedUdtTest {

    @Test
    void fourUdtConnectionsCarryOneStreamEchoedBackIntact() throws Exception {
        byte[] payload = new byte[8 << 20];
        new SplittableRandom(21).nextBytes(payload);
        ChannelOptions options = ChannelOptions.builder()
                .set(FerryChannelOption.STREAMS, 4)
                .set(UdtChannelOption.UDT_SEND_BUFFER, 4 << 20)
                .set(UdtChannelOption.UDT_RECEIVE_BUFFER, 4 << 20)
                .build();
        try (Transports ferry = Transports.create()) {
            Channel server = ferry.listen("udt://127.0.0.1:0", new ChannelInitializer<>() {
                @Override
                protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ctx.write(msg);
                        }

                        @Override
                        public void channelReadComplete(ChannelHandlerContext ctx) {
                            ctx.flush();
                        }
                    });
                }
            }, options).sync().channel();
            int port = ((java.net.InetSocketAddress) server.localAddress()).getPort();
            CompletableFuture<byte[]> echoed = new CompletableFuture<>();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            Channel client = ferry.connect("udt://127.0.0.1:" + port, new ChannelInitializer<>() {
                @Override
                protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ByteBuf buf = (ByteBuf) msg;
                            try {
                                buf.readBytes(got, buf.readableBytes());
                            } catch (java.io.IOException cannotHappen) {
                                throw new IllegalStateException(cannotHappen);
                            } finally {
                                buf.release();
                            }
                            if (got.size() >= payload.length) {
                                echoed.complete(got.toByteArray());
                            }
                        }

                        @Override
                        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                            echoed.completeExceptionally(cause);
                        }
                    });
                }
            }, options).sync().channel();
            StripedChannel striped = assertInstanceOf(StripedChannel.class, client);
            assertEquals(4, striped.members().size());
            for (int off = 0; off < payload.length; off += 256 << 10) {
                client.write(Unpooled.wrappedBuffer(payload, off, 256 << 10));
            }
            client.flush();
            assertArrayEquals(payload, echoed.get(90, TimeUnit.SECONDS), "the echo of 8 MiB over four UDT members");
            assertEquals("udt", FerryChannels.statistics(client).transport());
            assertTrue(FerryChannels.statistics(client).bytesReceived() >= payload.length);
            assertTrue(client.close().await(30, TimeUnit.SECONDS));
            server.close().sync();
        }
    }
}
