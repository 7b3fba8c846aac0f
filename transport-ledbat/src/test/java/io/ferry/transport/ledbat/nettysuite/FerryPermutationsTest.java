package io.ferry.transport.ledbat.nettysuite;

import io.ferry.transport.ledbat.channel.UtpServerChannel;
import io.ferry.transport.ledbat.channel.UtpSocketChannel;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.testsuite.transport.TestsuitePermutation;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * The Netty suite classes in this package ({@code UtpSocket*Test}) inherit their tests and assertions from
 * Netty's own classes and only give them Ferry's permutation; this proves that permutation really makes
 * uTP channels, so a pass there is a pass over utp://, not over Netty's default NIO sockets.
 */
class FerryPermutationsTest {

    @Test
    void thePermutationMakesUtpListenersAndConnections() throws Exception {
        List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> combos = FerryPermutations.of("utp");
        assertEquals(1, combos.size());
        Channel server = combos.get(0).newServerInstance().childHandler(new ChannelInboundHandlerAdapter())
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        try {
            assertInstanceOf(UtpServerChannel.class, server);
            Channel client = combos.get(0).newClientInstance().handler(new ChannelInboundHandlerAdapter())
                    .connect(server.localAddress()).sync().channel();
            assertInstanceOf(UtpSocketChannel.class, client);
            client.close().sync();
        } finally {
            server.close().sync();
        }
    }
}
