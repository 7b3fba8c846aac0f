package io.ferry.testsuite.netty;

import io.ferry.transport.conformance.FullBacklogPeer;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.testsuite.transport.TestsuitePermutation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Netty's own {@code SocketConnectionAttemptTest} over utp://, udt:// and striped channels (its refused tests dial {@code NetUtil.LOCALHOST}, ::1 here), through each one's bootstrap: its tests and assertions are Netty's (inherited), but for the peer that never answers in {@link #testConnectTimeout} and {@link #testConnectCancellation}. */
class FerrySocketConnectionAttemptTest extends io.netty.testsuite.transport.socket.SocketConnectionAttemptTest {
    @Override
    protected List<TestsuitePermutation.BootstrapFactory<Bootstrap>> newFactories() {
        return FerryPermutations.clients("utp", "udt", "tcp?streams=1", "tcp?streams=4");
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return FerryPermutations.loopback();
    }

    /**
     * Netty's test (the connect completes within 3 s of a 2 s timeout) against a loopback peer that never
     * answers instead of 198.51.100.254 (see {@link #testConnectCancellation}); here it must also have timed out.
     */
    @Test
    @Override
    public void testConnectTimeout(TestInfo testInfo) throws Throwable {
        try (SilentPeer peer = new SilentPeer()) {
            run(testInfo, new Runner<Bootstrap>() {
                @Override
                public void run(Bootstrap cb) throws Throwable {
                    cb.handler(new ChannelInboundHandlerAdapter()).option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 2000);
                    ChannelFuture future = cb.connect(peer.address());
                    try {
                        assertTrue(future.await(3000));
                        assertInstanceOf(ConnectTimeoutException.class, future.cause(), String.valueOf(future.cause()));
                    } finally {
                        future.channel().close();
                    }
                }
            });
        }
    }

    /**
     * Netty's test with its assertions, against a loopback peer that never answers instead of Netty's
     * 198.51.100.254: Ferry's tests send nothing off the machine, and over UDP the answer from that address
     * depends on the network (a gateway that sends ICMP "port unreachable" refuses a uTP connect at once,
     * where a TCP connect the test's own probe makes just times out). The peer is a TCP listener whose
     * backlog is full (SYNs dropped) and a UDP socket on the same port that reads nothing.
     */
    @Test
    @Override
    public void testConnectCancellation(TestInfo testInfo) throws Throwable {
        try (SilentPeer peer = new SilentPeer()) {
            run(testInfo, new Runner<Bootstrap>() {
                @Override
                public void run(Bootstrap cb) throws Throwable {
                    cancelAConnectTo(cb, peer.address());
                }
            });
        }
    }

    private static void cancelAConnectTo(Bootstrap cb, InetSocketAddress silent) throws Throwable {
        cb.handler(new ChannelInboundHandlerAdapter() {
            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                // as Netty's TestHandler: logged there, nothing to assert
            }
        }).option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 4000);
        ChannelFuture future = cb.connect(silent);
        try {
            if (future.await(1000)) {
                if (future.isSuccess()) {
                    fail("A connection attempt to a peer that never answers must not succeed.");
                } else {
                    throw future.cause();
                }
            }
            assertTrue(future.cancel(true), future.channel().getClass() + " should support connect cancellation");
            assertTrue(future.channel().closeFuture().await(500));
            assertTrue(future.isCancelled());
        } finally {
            future.channel().close();
        }
    }

    /**
     * A loopback TCP listener with a full accept queue ({@link FullBacklogPeer}), and a UDP socket on its port
     * that never replies. The kernel picks the TCP port without regard to UDP's, so the UDP port may be taken
     * (by the many UDP sockets of a test JVM beside this one: a soak run failed so); another port is then tried.
     */
    private static final class SilentPeer implements AutoCloseable {
        private static final int ATTEMPTS = 20;
        private FullBacklogPeer tcp;
        private DatagramSocket udp;

        SilentPeer() throws java.io.IOException {
            for (int attempt = 1; udp == null; attempt++) {
                tcp = new FullBacklogPeer();
                try {
                    udp = new DatagramSocket(tcp.address());
                } catch (java.net.BindException taken) {
                    tcp.close();
                    if (attempt == ATTEMPTS) {
                        throw taken;
                    }
                }
            }
        }

        InetSocketAddress address() {
            return tcp.address();
        }

        @Override
        public void close() throws java.io.IOException {
            udp.close();
            tcp.close();
        }
    }
}
