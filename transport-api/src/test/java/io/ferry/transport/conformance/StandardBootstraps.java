package io.ferry.transport.conformance;

import io.ferry.transport.Bootstrapping;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannels;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Netty's own {@code Bootstrap} and {@code ServerBootstrap}, as engines (gRPC, Arrow Flight, Vert.x, Spark)
 * build them: given the transport's group and channel factories, with options through {@code option(...)}
 * and {@code childOption(...)} and handlers typed for {@link SocketChannel}, they connect, accept and
 * carry bytes both ways, and the channels are the transport's (statistics, closed with it). Every
 * transport runs these as part of {@link TransportConformanceTest}, striped ones included (the striped
 * client opens its members on {@code connect}, the striped listener hands on what its members make up).
 */
interface StandardBootstraps extends ConformanceEndpoints {

    @Test
    @Timeout(60)
    default void nettysOwnBootstrapsConnectAcceptAndEchoOnTheTransport() throws Exception {
        ChannelOptions options = optionsForTest();
        String scheme = URI.create(uriForTest(1)).getScheme();
        Bootstrapping parts = transportsForTest().bootstrapping(scheme, options);
        byte[] payload = new byte[300_000];
        new SplittableRandom(47).nextBytes(payload);
        CompletableFuture<SocketChannel> accepted = new CompletableFuture<>();
        Channel server = parts.serverBootstrap()
                .option(ChannelOption.SO_BACKLOG, 64)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        accepted.complete(ch);
                        ch.pipeline().addLast(EchoHandler.INSTANCE);
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        ByteCollector echoed = new ByteCollector(payload.length);
        Channel client = transportsForTest().bootstrap(uriForTest(port), options)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(echoed);
                    }
                })
                .connect().sync().channel();
        try {
            client.writeAndFlush(Unpooled.wrappedBuffer(payload));
            assertArrayEquals(payload, TransportConformanceTest.await(echoed.done(), "the echo through bootstrapped channels"));
            SocketChannel child = TransportConformanceTest.await(accepted, "the accepted connection");
            assertEquals(scheme, FerryChannels.transportOf(client).name());
            assertEquals(scheme, FerryChannels.transportOf(child).name());
            assertTrue(FerryChannels.statistics(client).bytesSent() >= payload.length, () -> "client statistics " + FerryChannels.statistics(client));
            assertTrue(FerryChannels.statistics(child).bytesReceived() >= payload.length, () -> "accepted statistics " + FerryChannels.statistics(child));
        } finally {
            client.close().sync();
            server.close().sync();
        }
    }
}
