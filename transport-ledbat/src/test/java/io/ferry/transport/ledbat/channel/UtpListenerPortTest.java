package io.ferry.transport.ledbat.channel;

import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.List;
import java.util.ArrayList;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A uTP listener's sockets share their port with SO_REUSEPORT, which would let a second listener (or
 * {@code bind(0)}'s pick) land on a port another listener holds, the kernel then splitting SYNs between
 * them: a listener's port is its own, as a TCP listener's is.
 */
class UtpListenerPortTest {

    private static final Transports FERRY = Transports.create();

    @AfterAll
    static void close() {
        FERRY.close();
    }

    @Test
    void aSecondListenerOnAPortInUseFailsToBind() throws Exception {
        Channel first = FERRY.listen("utp://127.0.0.1:0", new ChannelInboundHandlerAdapter()).sync().channel();
        try {
            int port = ((InetSocketAddress) first.localAddress()).getPort();
            ChannelFuture second = FERRY.listen("utp://127.0.0.1:" + port, new ChannelInboundHandlerAdapter()).await();
            BindException refused = assertInstanceOf(BindException.class, second.cause());
            assertTrue(refused.getMessage().contains(String.valueOf(port)), refused.getMessage());
        } finally {
            first.close().sync();
        }
    }

    @Test
    void listenersOnPortZeroNeverShareAPort() throws Exception {
        List<Channel> listeners = new ArrayList<>();
        Set<Integer> ports = new HashSet<>();
        try {
            for (int i = 0; i < 60; i++) {
                Channel l = FERRY.listen("utp://127.0.0.1:0", new ChannelInboundHandlerAdapter()).sync().channel();
                listeners.add(l);
                ports.add(((InetSocketAddress) l.localAddress()).getPort());
            }
            assertEquals(listeners.size(), ports.size());
        } finally {
            for (Channel l : listeners) {
                l.close().sync();
            }
        }
    }
}
