package io.ferry.testsuite.engines;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many clients from one address at once, as a connection pool or the clients behind one NAT gateway or L4
 * proxy reach a server: 200 concurrent connections through Netty's bootstraps, each echoing 64 KiB, on every
 * transport and striped over 2 and 4 member connections. None is refused, none loses a byte.
 */
class FanInFromOneAddressTest {

    private static final int CLIENTS = 200;
    private static final int BYTES = 64 * 1024;

    /** Every transport, or those of {@code -Dferry.suite.schemes} (a soak over one transport). */
    static java.util.stream.Stream<String> specs() {
        List<String> all = List.of("tcp", "utp", "udt", "quic", "utp?streams=2", "utp?streams=4", "tcp?streams=4");
        String chosen = System.getProperty("ferry.suite.schemes");
        if (chosen == null) {
            return all.stream();
        }
        List<String> wanted = List.of(chosen.split(","));
        return all.stream().filter(wanted::contains);
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.MethodSource("specs")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void twoHundredConcurrentClientsFromOneAddressAreAllServed(String spec) throws Exception {
        try (Transports ferry = Transports.create()) {
            String scheme = spec.contains("?") ? spec.substring(0, spec.indexOf('?')) : spec;
            String query = spec.contains("?") ? spec.substring(spec.indexOf('?')) : "";
            java.util.Queue<Channel> accepted = new java.util.concurrent.ConcurrentLinkedQueue<>();
            ServerBootstrap sb = ferry.serverBootstrap(scheme + "://127.0.0.1:0" + query, ChannelOptions.empty())
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            accepted.add(ch);
                            ch.pipeline().addLast(new Echo());
                        }
                    });
            Channel server = sb.bind().sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            try (LoopStallWatch stalls = new LoopStallWatch(server.eventLoop().parent()); PortWatch kernel = new PortWatch(port)) {
                List<CompletableFuture<Long>> echoes = new ArrayList<>();
                List<Channel> clients = new ArrayList<>();
                for (int i = 0; i < CLIENTS; i++) {
                    CompletableFuture<Long> echoed = new CompletableFuture<>();
                    echoes.add(echoed);
                    Bootstrap b = ferry.bootstrap(scheme + "://127.0.0.1:" + port + query, ChannelOptions.empty())
                            .handler(new ChannelInitializer<SocketChannel>() {
                                @Override
                                protected void initChannel(SocketChannel ch) {
                                    ch.pipeline().addLast(new Counting(echoed));
                                }
                            });
                    ChannelFuture connected = b.connect();
                    clients.add(connected.channel());
                    connected.addListener(f -> {
                        if (f.isSuccess()) {
                            connected.channel().writeAndFlush(Unpooled.wrappedBuffer(new byte[BYTES]));
                        } else {
                            echoed.completeExceptionally(f.cause());
                        }
                    });
                }
                int served = 0;
                List<String> failures = new ArrayList<>();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                for (int i = 0; i < CLIENTS; i++) {
                    try {
                        assertEquals(BYTES, echoes.get(i).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                        served++;
                    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException failed) {
                        failures.add(failed instanceof java.util.concurrent.TimeoutException ? "no echo within 120 s"
                                : String.valueOf(failed.getCause()));
                        if (failures.size() <= 3) {
                            failures.set(failures.size() - 1, failures.get(failures.size() - 1) + stuck(clients.get(i), accepted));
                        }
                    }
                }
                int total = served;
                // kept in the test's output file even when it passes: a soak shows whether the port's group changed
                System.err.println("FanIn over " + spec + ": " + served + " of " + CLIENTS + " served; clients " + traffic(clients)
                        + "; server sides " + traffic(accepted) + listener(server) + kernel.report());
                assertTrue(failures.isEmpty(), () -> (CLIENTS - total) + " of " + CLIENTS + " clients over " + spec
                        + " were not served, e.g. " + String.join("; ", failures.subList(0, Math.min(3, failures.size()))) + stalls.report()
                        + listener(server) + kernel.report());
                for (Channel c : clients) {
                    assertTrue(c.close().await(30, TimeUnit.SECONDS), "closed in time: " + c);
                }
            } finally {
                server.close().sync();
            }
        }
    }

    /** Where an unserved client and its accepted connection stand, from their transports' statistics. */
    private static String stuck(Channel client, java.util.Collection<Channel> accepted) {
        StringBuilder s = new StringBuilder(" [client ").append(client.localAddress()).append(' ')
                .append(statisticsOf(client));
        for (Channel child : accepted) {
            if (client.localAddress() != null && client.localAddress().equals(child.remoteAddress())) {
                s.append("; its server side ").append(statisticsOf(child));
                String saw = child.attr(SERVER_SAW).get();
                if (saw != null) {
                    s.append(", which saw ").append(saw);
                }
            }
        }
        return s.append(']').toString();
    }

    /** Bytes and retransmissions summed over the open ones of {@code channels}, from their transports' statistics. */
    private static String traffic(java.util.Collection<Channel> channels) {
        long bytes = 0;
        long retransmissions = 0;
        int open = 0;
        for (Channel c : channels) {
            if (c.isOpen()) {
                try {
                    io.ferry.transport.TransportStatistics t = io.ferry.transport.FerryChannels.statistics(c);
                    bytes += t.bytesSent();
                    retransmissions += t.retransmissions().orElse(0);
                    open++;
                } catch (RuntimeException gone) {
                    // closed meanwhile
                }
            }
        }
        return open + " open sent " + bytes + " B with " + retransmissions + " retransmissions";
    }

    /** What a UDT listener's sockets did with datagrams they could not route themselves. */
    private static String listener(Channel server) {
        if (server instanceof io.ferry.transport.udt.UdtServerChannel udt) {
            return " [listener: " + udt.sockets() + " sockets, " + udt.handedOverDatagrams() + " datagrams handed between them, "
                    + udt.unroutableDatagrams() + " unroutable, " + udt.connectionFailures() + " connections failed]";
        }
        return "";
    }

    private static String statisticsOf(Channel channel) {
        try {
            return channel.isOpen() ? String.valueOf(io.ferry.transport.FerryChannels.statistics(channel)) : "closed";
        } catch (RuntimeException e) {
            return "statistics unavailable: " + e;
        }
    }

    /** Echoes what it reads. */
    private static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.channel().attr(SERVER_SAW).set(String.valueOf(cause));
            ctx.close();
        }
    }

    /** What an accepted connection's pipeline was told went wrong, for the failure report. */
    private static final io.netty.util.AttributeKey<String> SERVER_SAW = io.netty.util.AttributeKey.valueOf("fanin-server-saw");

    /** Counts echoed bytes and completes with {@link #BYTES} once they are all back. */
    private static final class Counting extends ChannelInboundHandlerAdapter {
        private final CompletableFuture<Long> echoed;
        private long count;

        Counting(CompletableFuture<Long> echoed) {
            this.echoed = echoed;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            count += buf.readableBytes();
            buf.release();
            if (count >= BYTES) {
                echoed.complete(count);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            echoed.completeExceptionally(new IllegalStateException("closed after " + count + " echoed bytes"));
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            echoed.completeExceptionally(cause);
            ctx.close();
        }
    }
}
