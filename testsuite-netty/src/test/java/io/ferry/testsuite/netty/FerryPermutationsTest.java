package io.ferry.testsuite.netty;

import io.ferry.transport.ledbat.channel.UtpServerChannel;
import io.ferry.transport.striped.StripedChannel;
import io.ferry.transport.striped.StripedServerChannel;
import io.ferry.transport.ledbat.channel.UtpSocketChannel;
import io.ferry.transport.quic.QuicServerChannel;
import io.ferry.transport.quic.QuicSocketChannel;
import io.ferry.transport.udt.UdtServerChannel;
import io.ferry.transport.udt.UdtSocketChannel;
import io.ferry.transport.hosted.HostedServerChannel;
import io.ferry.transport.hosted.HostedSocketChannel;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.testsuite.transport.TestsuitePermutation;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;

/**
 * The Netty suite classes in this package inherit their tests and assertions from Netty's own classes and
 * only give them Ferry's permutations; this proves those permutations really make Ferry's channels, so a
 * pass there is a pass over utp://, udt://, quic:// and striped channels, not over Netty's default NIO sockets.
 */
class FerryPermutationsTest {

    /** The checks below name the default schemes in order; a run with {@code -Dferry.suite.schemes} chose others. */
    @org.junit.jupiter.api.BeforeEach
    void onTheDefaultSchemes() {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getProperty("ferry.suite.schemes") == null,
                "ferry.suite.schemes chose other permutations than the default ones these checks name");
    }

    @Test
    void thePermutationsMakeEachTransportsListenersAndConnections() throws Exception {
        List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> combos = FerryPermutations.all();
        assertEquals(FerryPermutations.SCHEMES.size(), combos.size());
        expect(combos.get(0), UtpServerChannel.class, UtpSocketChannel.class);
        expect(combos.get(1), UdtServerChannel.class, UdtSocketChannel.class);
        expect(combos.get(2), QuicServerChannel.class, QuicSocketChannel.class);
        expect(combos.get(3), StripedServerChannel.class, StripedChannel.class);
        expect(combos.get(4), StripedServerChannel.class, StripedChannel.class);
        Channel[] hosted = expect(combos.get(5), HostedServerChannel.class, HostedSocketChannel.class);
        assertInstanceOf(UtpServerChannel.class, ((HostedServerChannel) hosted[0]).carried());
        assertInstanceOf(UtpSocketChannel.class, ((HostedSocketChannel) hosted[1]).carried());
        assertNotSame(((HostedSocketChannel) hosted[1]).carried().eventLoop(), hosted[1].eventLoop(),
                "a hosted connection is on a loop of the engine's group, the uTP connection on the transport's");
    }

    @Test
    void theClientPermutationsMakeEachTransportsConnections() {
        List<TestsuitePermutation.BootstrapFactory<Bootstrap>> clients = FerryPermutations.clients();
        assertInstanceOf(UtpSocketChannel.class, clients.get(0).newInstance().handler(new ChannelInboundHandlerAdapter()).register().syncUninterruptibly().channel());
        assertInstanceOf(UdtSocketChannel.class, clients.get(1).newInstance().handler(new ChannelInboundHandlerAdapter()).register().syncUninterruptibly().channel());
        assertInstanceOf(QuicSocketChannel.class, clients.get(2).newInstance().handler(new ChannelInboundHandlerAdapter()).register().syncUninterruptibly().channel());
        assertInstanceOf(StripedChannel.class, clients.get(4).newInstance().handler(new ChannelInboundHandlerAdapter()).register().syncUninterruptibly().channel());
        assertInstanceOf(HostedSocketChannel.class, clients.get(5).newInstance().handler(new ChannelInboundHandlerAdapter()).register().syncUninterruptibly().channel());
    }

    /** The listener and the client connection, both closed by then. */
    private static Channel[] expect(TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap> combo,
                                    Class<?> listener, Class<?> connection) throws Exception {
        Channel server = combo.newServerInstance().childHandler(new ChannelInboundHandlerAdapter())
                .bind(FerryPermutations.loopback()).sync().channel();
        try {
            assertInstanceOf(listener, server);
            Channel client = combo.newClientInstance().handler(new ChannelInboundHandlerAdapter())
                    .connect(server.localAddress()).sync().channel();
            assertInstanceOf(connection, client);
            client.close().sync();
            return new Channel[]{server, client};
        } finally {
            server.close().sync();
        }
    }
}
