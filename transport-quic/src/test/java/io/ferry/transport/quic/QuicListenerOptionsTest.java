package io.ferry.transport.quic;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * QUIC's own options reach a listener through {@code ServerBootstrap.option(...)} as through
 * {@code bootstrapping(...)}'s options (an engine sets them where it sets every other option), until it is bound.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuicListenerOptionsTest {

    @Test
    void anIdleTimeoutSetOnTheServerBootstrapIsTheListenersAndItsConnections() throws Exception {
        try (Transports ferry = Transports.create()) {
            Channel server = ferry.serverBootstrap("quic://127.0.0.1:0", ChannelOptions.empty())
                    .option(QuicOption.IDLE_TIMEOUT, Duration.ofSeconds(7))
                    .childHandler(new ChannelInboundHandlerAdapter())
                    .bind().sync().channel();
            try {
                QuicServerChannel quic = assertInstanceOf(QuicServerChannel.class, server);
                assertEquals(Duration.ofSeconds(7), server.config().getOption(QuicOption.IDLE_TIMEOUT), "read back as set");
                assertEquals(Duration.ofSeconds(7), quic.settings().idleTimeout, "the settings its sockets and connections start with");
                assertThrows(IllegalStateException.class, () -> server.config().setOption(QuicOption.IDLE_TIMEOUT, Duration.ofSeconds(9)),
                        "a bound listener's sockets keep the settings they started with");
                io.netty.channel.ChannelFuture client = ferry.connect(io.ferry.transport.FerryChannels.uri(server), new ChannelInboundHandlerAdapter());
                assertTrue(client.await(20, TimeUnit.SECONDS) && client.isSuccess(), () -> "a client connects: " + client.cause());
                client.channel().close().sync();
            } finally {
                server.close().sync();
            }
        }
    }
}
