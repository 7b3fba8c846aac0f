package io.ferry.transport.conformance;

import io.ferry.transport.FerryChannels;
import io.ferry.transport.TransportStatistics;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a user reads off a connection or listener, the same on every transport: statistics after close, a listener's URI. */
interface ConnectionFacts extends ConformanceEndpoints {

    @Test
    @Timeout(120)
    default void statisticsKeepTheirFiguresAfterBothEndsClosed() throws Exception {
        byte[] payload = new byte[1 << 20];
        new SplittableRandom(5).nextBytes(payload);
        ByteCollector collector = new ByteCollector(payload.length);
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        Channel server = listenForTest(ch -> {
            accepted.complete(ch);
            ch.pipeline().addLast(collector);
        });
        Channel client = connectForTest(server, ch -> { });
        try {
            client.writeAndFlush(Unpooled.wrappedBuffer(payload));
            assertArrayEquals(payload, TransportConformanceTest.await(collector.done(), "the payload"));
            Channel child = TransportConformanceTest.await(accepted, "the accepted connection");
            TransportStatistics open = FerryChannels.statistics(client);
            TransportStatistics openReceiver = FerryChannels.statistics(child);
            assertEquals(open.smoothedRtt().isPresent(), openReceiver.smoothedRtt().isPresent(),
                    "where the sender knows the RTT, so does the receiver: " + open + " / " + openReceiver);
            assertTrue(client.close().await(60, TimeUnit.SECONDS), "closed");
            assertTrue(child.closeFuture().await(60, TimeUnit.SECONDS), "the peer closed too");
            TransportStatistics sender = FerryChannels.statistics(client);
            TransportStatistics receiver = FerryChannels.statistics(child);
            assertEquals(payload.length, sender.bytesSent(), "bytes sent, read after the close: " + sender);
            assertEquals(payload.length, receiver.bytesReceived(), "bytes received, read after the close: " + receiver);
            assertEquals(open.smoothedRtt().isPresent(), sender.smoothedRtt().isPresent(),
                    "an RTT known while open is still known after the close: " + open + " / " + sender);
            assertEquals(open.retransmissions().isPresent(), sender.retransmissions().isPresent(),
                    "so are retransmissions: " + open + " / " + sender);
        } finally {
            client.close().sync();
            server.close().sync();
        }
    }

    @Test
    default void aListenerOnPortZeroGivesTheUriToConnectTo() throws Exception {
        Channel server = listenForTest(ch -> { });
        try {
            String uri = FerryChannels.uri(server);
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            assertNotEquals(0, port);
            java.util.Optional<Integer> streams = optionsForTest().get(io.ferry.transport.FerryChannelOption.STREAMS);
            // a striped listener's URI carries the streams its clients must ask for: connecting to it needs nothing else
            assertEquals(uriForTest(port) + streams.map(n -> "?streams=" + n).orElse(""), uri);
            ChannelFuture connected = transportsForTest().connect(uri, new ChannelInboundHandlerAdapter(),
                    optionsForTest().toBuilder().remove(io.ferry.transport.FerryChannelOption.STREAMS).build());
            assertTrue(connected.await(30, TimeUnit.SECONDS) && connected.isSuccess(), "connected to " + uri + ": " + connected.cause());
            connected.channel().close().sync();
        } finally {
            server.close().sync();
        }
    }
}
