package io.ferry.transport.striped;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.conformance.TransportConformanceTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * The conformance suite over {@code quic://…?streams=4}: each channel's members are four streams of one QUIC
 * connection (one handshake, one congestion controller), not four connections.
 */
class StripedQuicConformanceTest extends TransportConformanceTest {

    private static final int STREAMS = 4;

    @Override
    protected String scheme() {
        return "quic";
    }

    @Override
    protected ChannelOptions baseOptions() {
        return ChannelOptions.builder().set(FerryChannelOption.STREAMS, STREAMS).build();
    }

    /**
     * 16 MiB: four streams of one QUIC connection run at about a quarter of one stream's loopback rate
     * (transport-quic's README, 27 CPU s/GiB), so 64 MiB took 10-12 s each way; one QUIC stream moves
     * the full 64 MiB in QuicConformanceTest, and the striped layer's reassembly moves it in the TCP runs.
     */
    @Override
    protected int bulkBytes() {
        return 16 << 20;
    }

    @Test
    void theMembersAreStreamsOfOneQuicConnection() throws Exception {
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        Channel server = listen(accepted::complete);
        Channel client = connect(server, ch -> { });
        try {
            StripedChannel striped = assertInstanceOf(StripedChannel.class, client);
            assertEquals(STREAMS, striped.members().size(), "client members");
            Set<InetSocketAddress> clientSockets = new HashSet<>();
            for (Channel m : striped.members()) {
                clientSockets.add((InetSocketAddress) m.localAddress());
            }
            assertEquals(1, clientSockets.size(), "one UDP socket (one QUIC connection) carries every member: " + clientSockets);
            StripedChannel child = assertInstanceOf(StripedChannel.class, accepted.get(20, TimeUnit.SECONDS));
            Set<InetSocketAddress> peers = new HashSet<>();
            for (Channel m : child.members()) {
                peers.add((InetSocketAddress) m.remoteAddress());
            }
            assertEquals(clientSockets, peers, "the listener sees every member come from that one socket");
        } finally {
            client.close().await(20, TimeUnit.SECONDS);
            server.close().await(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void twoStripedChannelsToOneListenerUseOneConnectionEachAndKeepTheirBytesApart() throws Exception {
        int size = 4 << 20;
        byte[][] payloads = new byte[2][size];
        new SplittableRandom(7).nextBytes(payloads[0]);
        new SplittableRandom(8).nextBytes(payloads[1]);
        Channel server = listen(ch -> ch.pipeline().addLast(new SimpleChannelInboundHandler<ByteBuf>() {
            @Override
            protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                ctx.writeAndFlush(msg.retain());
            }
        }));
        Channel[] clients = new Channel[2];
        @SuppressWarnings("unchecked")
        CompletableFuture<byte[]>[] digests = new CompletableFuture[2];
        try {
            for (int i = 0; i < 2; i++) {
                CompletableFuture<byte[]> digest = new CompletableFuture<>();
                digests[i] = digest;
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                clients[i] = connect(server, ch -> ch.pipeline().addLast(new SimpleChannelInboundHandler<ByteBuf>() {
                    long seen;

                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                        byte[] b = new byte[msg.readableBytes()];
                        msg.readBytes(b);
                        sha.update(b);
                        if ((seen += b.length) == size) {
                            digest.complete(sha.digest());
                        }
                    }
                }));
            }
            Set<InetSocketAddress> sockets = new HashSet<>();
            for (int i = 0; i < 2; i++) {
                for (Channel m : ((StripedChannel) clients[i]).members()) {
                    sockets.add((InetSocketAddress) m.localAddress());
                }
                clients[i].writeAndFlush(Unpooled.wrappedBuffer(payloads[i]));
            }
            assertEquals(2, sockets.size(), "each striped channel has a QUIC connection of its own: " + sockets);
            for (int i = 0; i < 2; i++) {
                assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(payloads[i]), digests[i].get(30, TimeUnit.SECONDS),
                        "channel " + i + " got its own bytes back, in order");
            }
        } finally {
            for (Channel c : clients) {
                if (c != null) {
                    c.close().await(20, TimeUnit.SECONDS);
                }
            }
            server.close().await(20, TimeUnit.SECONDS);
        }
    }
}
