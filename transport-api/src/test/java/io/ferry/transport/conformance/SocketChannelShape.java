package io.ferry.transport.conformance;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.SocketChannelConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every connection is a Netty {@link SocketChannel} and every listener a {@link ServerSocketChannel}, as
 * engines type them (Spark initialises {@code ChannelInitializer<SocketChannel>} and casts addresses to
 * {@link InetSocketAddress}); the socket options their bootstraps set by habit are taken (mapped or
 * without effect, as each transport documents), never refused and never logged as unknown. Every
 * transport runs these as part of {@link TransportConformanceTest}.
 */
interface SocketChannelShape extends ConformanceEndpoints {

    @Test
    @Timeout(60)
    default void connectionsAreSocketChannelsWithInetAddressesAndListenersServerSocketChannels() throws Exception {
        CompletableFuture<SocketChannel> accepted = new CompletableFuture<>();
        Channel server = listenForTest(ch -> ch.pipeline().addLast(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel sc) {
                accepted.complete(sc);
            }
        }));
        Channel client = connectForTest(server, ch -> { });
        try {
            assertInstanceOf(ServerSocketChannel.class, server);
            InetSocketAddress bound = ((ServerSocketChannel) server).localAddress();
            assertTrue(bound.getPort() > 0, "a listener's bound port");
            SocketChannel c = assertInstanceOf(SocketChannel.class, client);
            assertEquals(bound.getPort(), c.remoteAddress().getPort());
            assertTrue(c.localAddress().getPort() > 0);
            SocketChannel child = TransportConformanceTest.await(accepted, "the accepted connection as a SocketChannel");
            assertEquals(c.localAddress().getPort(), child.remoteAddress().getPort());
            assertNotNull(child.parent(), "an accepted connection's parent is its listener");
        } finally {
            client.close().sync();
            server.close().sync();
        }
    }

    @Test
    @Timeout(60)
    default void theSocketOptionsBootstrapsSetByHabitAreTaken() throws Exception {
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        Channel server = listenForTest(accepted::complete);
        Channel client = connectForTest(server, ch -> { });
        try {
            for (Channel ch : new Channel[]{client, TransportConformanceTest.await(accepted, "the accepted connection")}) {
                // Netty's bootstraps log "Unknown channel option" for every option a config answers false to
                assertTrue(ch.config().setOption(ChannelOption.TCP_NODELAY, true), ch + ": TCP_NODELAY");
                assertTrue(ch.config().setOption(ChannelOption.SO_KEEPALIVE, true), ch + ": SO_KEEPALIVE");
                assertTrue(ch.config().setOption(ChannelOption.SO_REUSEADDR, true), ch + ": SO_REUSEADDR");
                assertNotNull(ch.config().getOption(ChannelOption.SO_RCVBUF), ch + ": SO_RCVBUF");
                assertNotNull(ch.config().getOption(ChannelOption.SO_SNDBUF), ch + ": SO_SNDBUF");
                assertNotNull(ch.config().getOption(ChannelOption.SO_LINGER), ch + ": SO_LINGER");
                SocketChannelConfig config = assertInstanceOf(SocketChannelConfig.class, ch.config());
                config.setKeepAlive(true).setTcpNoDelay(true);
                assertTrue(config.isTcpNoDelay());
            }
            assertTrue(server.config().setOption(ChannelOption.SO_BACKLOG, 256), "a listener takes SO_BACKLOG");
            assertTrue(server.config().setOption(ChannelOption.SO_REUSEADDR, true), "a listener takes SO_REUSEADDR");
        } finally {
            client.close().sync();
            server.close().sync();
        }
    }
}
