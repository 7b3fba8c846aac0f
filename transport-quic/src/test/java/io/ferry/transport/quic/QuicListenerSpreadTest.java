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
    void aSecondListenerOnAPortInUseIsRefusedNotJoinedToTheFirstsGroup() throws Exception {
        assumeTrue(Epoll.isAvailable(), "the sockets share their port with epoll's SO_REUSEPORT");
        // two Transports stand for two processes of one user: SO_REUSEPORT would let the second join the first's port
        try (Transports first = Transports.create(); Transports second = Transports.create()) {
            Channel listener = first.listen("quic://127.0.0.1:0", new ChannelInboundHandlerAdapter()).sync().channel();
            int port = ((InetSocketAddress) listener.localAddress()).getPort();
            io.netty.channel.ChannelFuture again = second.listen("quic://127.0.0.1:" + port, new ChannelInboundHandlerAdapter());
            assertTrue(again.await(10, TimeUnit.SECONDS));
            assertTrue(again.cause() instanceof java.net.BindException, String.valueOf(again.cause()));
            assertTrue(again.cause().getMessage().contains("QUIC cannot listen on") && again.cause().getMessage().contains("in use"),
                    again.cause().getMessage());
            // nor beside a plain UDP socket holding the port (a uTP or UDT listener's, say)
            try (java.net.DatagramSocket held = new java.net.DatagramSocket(0, java.net.InetAddress.getLoopbackAddress())) {
                io.netty.channel.ChannelFuture beside = second.listen("quic://127.0.0.1:" + held.getLocalPort(), new ChannelInboundHandlerAdapter());
                assertTrue(beside.await(10, TimeUnit.SECONDS));
                assertTrue(beside.cause() instanceof java.net.BindException, String.valueOf(beside.cause()));
            }
            listener.close().sync();
        }
    }

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
