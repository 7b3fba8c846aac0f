package io.ferry.transport.conformance;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.Transports;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * For a transport whose listener binds several UDP sockets to one port ({@code SO_REUSEPORT}): the kernel
 * spreads peers over them by a hash, but the spread changes with the group. Here a socket of another owner
 * joins the port while clients connect and leaves afterwards, which moves about a quarter of the established
 * peers from one of the listener's sockets to the other (Linux picks {@code hash * n >> 32} of n sockets).
 * Every established connection must go on echoing, its datagrams handed to the socket that holds it, and
 * no peer may be accepted twice. Before the sockets shared their routing, moved peers went silent until the
 * dead-peer timer reset them over udt (the soak's FanIn failures, 31-35 of 200 clients) and drew a RESET
 * over utp (7 of 30 clients "reset by peer").
 */
@ExtendWith(LeakDetectionExtension.class)
public abstract class ListenerSocketRemapContract {
    private static final int CLIENTS = 48;
    private static final int BYTES = 64 * 1024;

    private Transports ferry;

    @BeforeEach
    void open() {
        ferry = Transports.create();
    }

    @AfterEach
    void close() {
        ferry.close();
    }

    /** The transport's scheme ("utp", "udt"). */
    protected abstract String scheme();

    /** How many UDP sockets {@code listener} receives on. */
    protected abstract int sockets(Channel listener);

    /** Datagrams one of {@code listener}'s sockets handed to another (the kernel moved their peer). */
    protected abstract long handedOver(Channel listener);

    @Test
    void peersMovedBetweenTheListenersSocketsKeepTheirConnections() throws Exception {
        Queue<Channel> accepted = new ConcurrentLinkedQueue<>();
        Channel server = ferry.listen(scheme() + "://127.0.0.1:0", new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                accepted.add(ch);
                ch.pipeline().addLast(new Echo());
            }
        }).sync().channel();
        try {
            assumeTrue(sockets(server) >= 2, "the listener has one socket here (no epoll, or one core)");
            List<Channel> clients = new ArrayList<>();
            List<CompletableFuture<Long>> echoes = new ArrayList<>();
            // dual-stack, as Netty's epoll sockets are: the kernel groups only sockets of one family
            try (DatagramChannel intruder = DatagramChannel.open()) {
                intruder.setOption(StandardSocketOptions.SO_REUSEPORT, true);
                intruder.bind(server.localAddress()); // joins the group: a third of new peers land there, unanswered
                ChannelOptions quick = ChannelOptions.builder().set(FerryChannelOption.CONNECT_TIMEOUT, Duration.ofSeconds(2)).build();
                List<ChannelFuture> connects = new ArrayList<>();
                List<CompletableFuture<Long>> pending = new ArrayList<>();
                for (int i = 0; i < CLIENTS; i++) {
                    CompletableFuture<Long> echoed = new CompletableFuture<>();
                    pending.add(echoed);
                    connects.add(ferry.connect(scheme() + "://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort(),
                            new Counting(echoed), quick));
                }
                for (int i = 0; i < CLIENTS; i++) {
                    if (connects.get(i).awaitUninterruptibly(10, TimeUnit.SECONDS) && connects.get(i).isSuccess()) {
                        clients.add(connects.get(i).channel());
                        echoes.add(pending.get(i));
                    }
                }
            } // the intruder leaves: the group is the listener's two sockets again, spread anew
            assertTrue(clients.size() >= CLIENTS / 3, () -> "too few clients connected past the intruder: " + clients.size());
            for (Channel c : clients) {
                c.writeAndFlush(Unpooled.wrappedBuffer(new byte[BYTES]));
            }
            List<String> unserved = new ArrayList<>();
            for (int i = 0; i < clients.size(); i++) {
                try {
                    assertEquals(BYTES, echoes.get(i).get(20, TimeUnit.SECONDS));
                } catch (Exception e) {
                    unserved.add(clients.get(i).localAddress() + ": " + e);
                }
            }
            assertTrue(unserved.isEmpty(), () -> unserved.size() + " of " + clients.size() + " established clients were not served"
                    + " after the spread changed (" + handedOver(server) + " datagrams handed over), e.g. " + unserved.get(0));
            assertTrue(handedOver(server) > 0,
                    "no peer moved between the listener's sockets, so the test proved nothing (about 1 run in 10,000)");
            assertEquals(clients.size(), accepted.size(), "one accepted connection per client, none accepted twice");
            for (Channel c : clients) {
                assertTrue(c.close().await(10, TimeUnit.SECONDS), "closed in time: " + c);
            }
        } finally {
            server.close().sync();
        }
    }

    private static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

    private static final class Counting extends ChannelInboundHandlerAdapter {
        private final CompletableFuture<Long> done;
        private final AtomicLong bytes = new AtomicLong();

        Counting(CompletableFuture<Long> done) {
            this.done = done;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            try {
                if (bytes.addAndGet(b.readableBytes()) >= BYTES) {
                    done.complete(bytes.get());
                }
            } finally {
                b.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            done.completeExceptionally(new IllegalStateException("closed after " + bytes.get() + " bytes"));
        }
    }
}
