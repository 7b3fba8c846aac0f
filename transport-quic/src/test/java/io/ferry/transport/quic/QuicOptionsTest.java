package io.ferry.transport.quic;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.Transports;
import io.ferry.transport.UnsupportedOptionException;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.MaxMessagesRecvByteBufAllocator;
import io.netty.handler.codec.quic.QuicCongestionControlAlgorithm;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** QUIC's options: each one validated with a message that names it, and what the defaults are. */
class QuicOptionsTest {

    @Test
    void defaultsSuitALongFatPathAndNeverStallAtAZeroWindow() {
        QuicSettings s = QuicSettings.of(ChannelOptions.empty());
        assertEquals(QuicCongestionControlAlgorithm.CUBIC, s.congestionControl);
        assertEquals(8 << 20, s.streamWindow, "8 MiB per stream: 200 Mbit/s over 150 ms needs 3.75 MB in flight");
        assertEquals(1472, s.payload);
        assertEquals(Duration.ofSeconds(30), s.idleTimeout);
    }

    @Test
    void congestionControlIsOneOfQuichesAndOthersAreRefusedByName() {
        for (String name : new String[] {"reno", "cubic", "bbr", "BBR"}) {
            QuicSettings.of(ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, name).build());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QuicSettings.of(
                ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, "ledbat").build()));
        assertTrue(e.getMessage().contains("reno, cubic or bbr") && e.getMessage().contains("ledbat"), e.getMessage());
    }

    @Test
    void aPayloadBelowWhatEveryPathCarriesIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QuicSettings.of(
                ChannelOptions.builder().set(FerryChannelOption.PACKET_SIZE, 1000).build()));
        assertTrue(e.getMessage().contains("1200"), e.getMessage());
    }

    @Test
    void badValuesAreRefusedWhenSetNamingTheOption() {
        IllegalArgumentException idle = assertThrows(IllegalArgumentException.class,
                () -> ChannelOptions.builder().set(QuicOption.IDLE_TIMEOUT, Duration.ZERO));
        assertTrue(idle.getMessage().contains("QUIC_IDLE_TIMEOUT"), idle.getMessage());
        IllegalArgumentException pin = assertThrows(IllegalArgumentException.class,
                () -> ChannelOptions.builder().set(QuicOption.PIN, "md5:abc"));
        assertTrue(pin.getMessage().contains("md5:abc"), pin.getMessage());
        IllegalArgumentException gso = assertThrows(IllegalArgumentException.class,
                () -> ChannelOptions.builder().set(QuicOption.GSO_SEGMENTS, 0));
        assertTrue(gso.getMessage().contains("QUIC_GSO_SEGMENTS"), gso.getMessage());
    }

    @Test
    void aPinAndAClientContextTogetherAreRefused() {
        ChannelOptions both = ChannelOptions.builder()
                .set(QuicOption.PIN, "sha256:" + "ab".repeat(32))
                .set(QuicOption.CLIENT_TLS, QuicSslContextBuilder.forClient().applicationProtocols(QuicTls.ALPN).build())
                .build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QuicSettings.of(both));
        assertTrue(e.getMessage().contains("QUIC_PIN") && e.getMessage().contains("QUIC_CLIENT_TLS"), e.getMessage());
    }

    @Test
    void aServerContextWhereAClientOneBelongsIsRefused() {
        ChannelOptions wrong = ChannelOptions.builder()
                .set(QuicOption.SERVER_TLS, QuicSslContextBuilder.forClient().applicationProtocols(QuicTls.ALPN).build()).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QuicSettings.of(wrong));
        assertTrue(e.getMessage().contains("forServer"), e.getMessage());
    }

    @Test
    void anOptionQuicDoesNotHaveIsRefusedListingThoseItHas() {
        try (Transports ferry = Transports.create()) {
            ChannelOptions pacing = ChannelOptions.builder().set(FerryChannelOption.PACING_RATE, 1_000_000L).build();
            UnsupportedOptionException e = assertThrows(UnsupportedOptionException.class,
                    () -> ferry.connect("quic://127.0.0.1:9", new ChannelInboundHandlerAdapter(), pacing));
            assertTrue(e.getMessage().contains("PACING_RATE") && e.getMessage().contains("QUIC_IDLE_TIMEOUT"), e.getMessage());
        }
    }

    @Test
    void eachCongestionControlMovesBytes() throws Exception {
        try (Transports ferry = Transports.create()) {
            for (String cc : new String[] {"reno", "cubic", "bbr"}) {
                ChannelOptions options = ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, cc).build();
                java.util.concurrent.CompletableFuture<Integer> got = new java.util.concurrent.CompletableFuture<>();
                Channel server = ferry.listen("quic://127.0.0.1:0", new ChannelInboundHandlerAdapter() {
                    int n;

                    @Override
                    public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
                        n += ((io.netty.buffer.ByteBuf) msg).readableBytes();
                        ((io.netty.buffer.ByteBuf) msg).release();
                        if (n == 1 << 20) {
                            got.complete(n);
                        }
                    }
                }, options).sync().channel();
                Channel client = ferry.connect(io.ferry.transport.FerryChannels.uri(server), new ChannelInboundHandlerAdapter(), options)
                        .sync().channel();
                client.writeAndFlush(io.netty.buffer.Unpooled.wrappedBuffer(new byte[1 << 20]));
                assertEquals(1 << 20, got.get(20, java.util.concurrent.TimeUnit.SECONDS), cc);
                assertTrue(client.close().await(10_000), cc);
                server.close().sync();
            }
        }
    }

    /** A QUIC socket reads many datagrams a loop: its own fixed-size allocator would read one (Netty keeps the count in it). */
    @Test
    void aQuicSocketReadsManyDatagramsPerLoop() {
        Bootstrap b = new Bootstrap();
        QuicIo.detect().configure(b);
        Object alloc = b.config().options().get(ChannelOption.RCVBUF_ALLOCATOR);
        assertEquals(io.ferry.transport.udp.UdpIo.READS_PER_LOOP, ((MaxMessagesRecvByteBufAllocator) alloc).maxMessagesPerRead());
    }
}
