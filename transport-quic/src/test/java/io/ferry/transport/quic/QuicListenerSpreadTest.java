package io.ferry.transport.quic;

import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.epoll.Epoll;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A listener's connections spread over the transport's event loops: one socket per loop on the one port. */
class QuicListenerSpreadTest {

    private static final int CONNECTIONS = 24;

    @Test
    void connectionsToOneListenerLiveOnMoreThanOneLoop() throws Exception {
        assumeTrue(Epoll.isAvailable(), "the sockets spread with epoll's SO_REUSEPORT");
        assumeTrue(Runtime.getRuntime().availableProcessors() > 1, "one loop per processor: needs two");
        try (Transports server = Transports.create(); Transports clients = Transports.create()) {
            Set<EventLoop> loops = ConcurrentHashMap.newKeySet();
            Set<Integer> localPorts = ConcurrentHashMap.newKeySet();
            CountDownLatch accepted = new CountDownLatch(CONNECTIONS);
            QuicServerChannel listener = (QuicServerChannel) server.listen("quic://127.0.0.1:0", new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    loops.add(ctx.channel().eventLoop());
                    localPorts.add(((InetSocketAddress) ctx.channel().localAddress()).getPort());
                    accepted.countDown();
                    ctx.fireChannelActive();
                }

                @Override
                public boolean isSharable() {
                    return true;
                }
            }).sync().channel();
            assertEquals(Runtime.getRuntime().availableProcessors(), listener.socketCount(), "one socket per event loop");
            int port = listener.localAddress().getPort();
            List<Channel> connected = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                connected.add(clients.connect("quic://127.0.0.1:" + port, new ChannelInboundHandlerAdapter()).sync().channel());
            }
            assertTrue(accepted.await(20, TimeUnit.SECONDS), "every connection accepted");
            assertEquals(Set.of(port), localPorts, "every connection is on the listener's port");
            assertTrue(loops.size() > 1, "the connections live on " + loops.size() + " loop(s): they should spread");
            for (Channel c : connected) {
                c.close().await(10, TimeUnit.SECONDS);
            }
            listener.close().sync();
        }
    }
}
