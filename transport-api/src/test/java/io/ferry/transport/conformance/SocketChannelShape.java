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

    /** Cassandra's internode options: Netty's native epoll keep-alive and user timeout beside the plain ones. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static java.util.Map<ChannelOption<?>, Object> cassandraOptions() {
        java.util.Map<ChannelOption<?>, Object> m = new java.util.LinkedHashMap<>();
        // the constants of io.netty.channel.epoll.EpollChannelOption, by the names Netty gives them (the same objects once that class loads)
        m.put(ChannelOption.valueOf("io.netty.channel.epoll.EpollChannelOption#TCP_USER_TIMEOUT"), 30_000);
        m.put(ChannelOption.valueOf("io.netty.channel.epoll.EpollChannelOption#TCP_KEEPIDLE"), 60);
        m.put(ChannelOption.valueOf("io.netty.channel.epoll.EpollChannelOption#TCP_KEEPINTVL"), 10);
        m.put(ChannelOption.valueOf("io.netty.channel.epoll.EpollChannelOption#TCP_KEEPCNT"), 5);
        m.put(ChannelOption.SO_KEEPALIVE, true);
        m.put(ChannelOption.TCP_NODELAY, true);
        m.put(ChannelOption.SO_SNDBUF, 1 << 20);
        m.put(ChannelOption.SO_RCVBUF, 1 << 20);
        m.put(ChannelOption.WRITE_BUFFER_WATER_MARK, new io.netty.channel.WriteBufferWaterMark(1 << 15, 1 << 16));
        return m;
    }

    /** Elasticsearch's transport options: keep-alive through NioChannelOption and the JDK's extended options. */
    static java.util.Map<ChannelOption<?>, Object> elasticsearchOptions() {
        java.util.Map<ChannelOption<?>, Object> m = new java.util.LinkedHashMap<>();
        m.put(ChannelOption.TCP_NODELAY, true);
        m.put(ChannelOption.SO_KEEPALIVE, true);
        m.put(io.netty.channel.socket.nio.NioChannelOption.of(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE), 300);
        m.put(io.netty.channel.socket.nio.NioChannelOption.of(jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL), 60);
        m.put(io.netty.channel.socket.nio.NioChannelOption.of(jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT), 5);
        m.put(io.netty.channel.socket.nio.NioChannelOption.of(java.net.StandardSocketOptions.TCP_NODELAY), true);
        m.put(ChannelOption.SO_REUSEADDR, true);
        return m;
    }

    /**
     * The option sets Cassandra and Elasticsearch give Netty's bootstraps, on a client, a listener and its
     * children: every one taken (a config that answers false makes Netty log "Unknown channel option" per
     * connection), and the connection carries bytes.
     */
    @Test
    @Timeout(60)
    @SuppressWarnings({"unchecked", "rawtypes"})
    default void theOptionSetsOfCassandraAndElasticsearchAreTakenWithoutAWarning() throws Exception {
        String scheme = java.net.URI.create(uriForTest(1)).getScheme();
        io.ferry.transport.Bootstrapping parts = transportsForTest().bootstrapping(scheme, optionsForTest());
        for (java.util.Map<ChannelOption<?>, Object> set : java.util.List.of(cassandraOptions(), elasticsearchOptions())) {
            CompletableFuture<SocketChannel> accepted = new CompletableFuture<>();
            io.netty.bootstrap.ServerBootstrap sb = parts.serverBootstrap()
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .option((ChannelOption) ChannelOption.valueOf("io.netty.channel.unix.UnixChannelOption#SO_REUSEPORT"), true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            accepted.complete(ch);
                            ch.pipeline().addLast(EchoHandler.INSTANCE);
                        }
                    });
            set.forEach((o, v) -> sb.childOption((ChannelOption) o, v));
            Channel server = sb.bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            ByteCollector echoed = new ByteCollector(10_000);
            io.netty.bootstrap.Bootstrap b = transportsForTest().bootstrap(uriForTest(port), optionsForTest())
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(echoed);
                        }
                    });
            set.forEach((o, v) -> b.option((ChannelOption) o, v));
            Channel client = b.connect().sync().channel();
            try {
                client.writeAndFlush(io.netty.buffer.Unpooled.wrappedBuffer(new byte[10_000]));
                TransportConformanceTest.await(echoed.done(), "the echo");
                SocketChannel child = TransportConformanceTest.await(accepted, "the accepted connection");
                // tcp:// channels are Netty's own kernel sockets, which take the options of their own kind only (an
                // engine sets epoll's on epoll channels, NIO's on NIO ones): Netty's behaviour, not a Ferry channel's
                boolean nettyNio = client instanceof io.netty.channel.socket.nio.NioSocketChannel;
                boolean nettyEpoll = io.ferry.transport.FerryChannels.isKernelSocket(client) && !nettyNio;
                for (java.util.Map.Entry<ChannelOption<?>, Object> e : set.entrySet()) {
                    if (nettyNio && e.getKey().name().startsWith("io.netty.channel.")
                            || nettyEpoll && e.getKey() instanceof io.netty.channel.socket.nio.NioChannelOption) {
                        continue;
                    }
                    for (Channel ch : new Channel[]{client, child}) {
                        assertTrue(ch.config().setOption((ChannelOption) e.getKey(), e.getValue()),
                                () -> ch + " takes " + e.getKey().name() + " (Netty logs every option a config refuses)");
                    }
                }
                assertTrue(nettyNio || server.config().setOption((ChannelOption) ChannelOption.valueOf("io.netty.channel.unix.UnixChannelOption#SO_REUSEPORT"), true),
                        "a listener takes SO_REUSEPORT");
            } finally {
                client.close().sync();
                server.close().sync();
            }
        }
    }
}
