package io.ferry.transport.ledbat.channel;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.ferry.transport.striped.StripedServerChannel;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * uTP's listener options reach the listener through {@code ServerBootstrap.option(...)} as through
 * {@code bootstrapping(...)}'s options, on a plain listener and on a striped one (whose members' listener
 * takes them): an engine sets them where it sets every other option.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ListenerOptionsThroughBootstrapTest {

    @ParameterizedTest
    @ValueSource(strings = {"", "?streams=2"})
    void aPerAddressLimitSetOnTheServerBootstrapAdmitsOneClientAndRefusesTheNext(String query) throws Exception {
        int members = query.isEmpty() ? 1 : 2;
        try (Transports ferry = Transports.create()) {
            Channel server = ferry.serverBootstrap("utp://127.0.0.1:0" + query, ChannelOptions.empty())
                    .option(UtpChannelOption.MAX_CONNECTIONS_PER_ADDRESS, members)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                        }
                    })
                    .bind().sync().channel();
            try {
                assertEquals(members, server.config().getOption(UtpChannelOption.MAX_CONNECTIONS_PER_ADDRESS), "read back as set");
                if (server instanceof StripedServerChannel striped) {
                    assertEquals(members, striped.memberListener().config().getOption(UtpChannelOption.MAX_CONNECTIONS_PER_ADDRESS),
                            "the members' listener has it");
                }
                int port = ((InetSocketAddress) server.localAddress()).getPort();
                ChannelFuture first = ferry.connect("utp://127.0.0.1:" + port + query, new ChannelInboundHandlerAdapter());
                assertTrue(first.await(20, TimeUnit.SECONDS) && first.isSuccess(), () -> "the first client is admitted: " + first.cause());
                ChannelFuture second = ferry.connect("utp://127.0.0.1:" + port + query, new ChannelInboundHandlerAdapter());
                assertTrue(second.await(20, TimeUnit.SECONDS), "the second connect ended");
                assertFalse(second.isSuccess(), "the second client is refused by the limit the bootstrap set");
                first.channel().close().sync();
            } finally {
                server.close().sync();
            }
        }
    }

    @Test
    void aLimitCannotChangeOnceTheListenerIsBoundOrBeNonPositive() throws Exception {
        try (Transports ferry = Transports.create()) {
            Channel server = ferry.serverBootstrap("utp://127.0.0.1:0", ChannelOptions.empty())
                    .childHandler(new ChannelInboundHandlerAdapter()).bind().sync().channel();
            try {
                assertEquals(4096, server.config().getOption(UtpChannelOption.MAX_CONNECTIONS_PER_ADDRESS), "the default");
                assertThrows(IllegalStateException.class, () -> server.config().setOption(UtpChannelOption.MAX_CONNECTIONS, 10));
            } finally {
                server.close().sync();
            }
            Channel unbound = ferry.bootstrapping("utp").serverChannelFactory().newChannel();
            try {
                assertInstanceOf(UtpServerChannel.class, unbound);
                assertThrows(io.ferry.transport.UnsupportedOptionException.class,
                        () -> unbound.config().setOption(UtpChannelOption.RESET_RATE, 0));
            } finally {
                unbound.unsafe().closeForcibly();
            }
        }
    }
}
