package io.ferry.transport.ledbat.channel;

import io.ferry.transport.spi.HabitualOptions;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.unix.UnixChannelOption;
import jdk.net.ExtendedSocketOptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kernel TCP knobs engines set by habit are recognised by the real constants of Netty's native and NIO
 * transports (by name, so that transports need none of those classes), and a uTP channel takes them with no
 * effect instead of answering false (which makes Netty log "Unknown channel option" per connection).
 */
class KernelTcpKnobsTest {

    @Test
    void nettysNativeAndNioKeepAliveAndTimeoutOptionsAreKernelKnobs() {
        for (ChannelOption<?> o : new ChannelOption<?>[]{EpollChannelOption.TCP_USER_TIMEOUT, EpollChannelOption.TCP_KEEPIDLE,
                EpollChannelOption.TCP_KEEPINTVL, EpollChannelOption.TCP_KEEPCNT, EpollChannelOption.TCP_QUICKACK,
                EpollChannelOption.TCP_CORK, EpollChannelOption.TCP_FASTOPEN_CONNECT, EpollChannelOption.IP_FREEBIND,
                UnixChannelOption.SO_REUSEPORT, NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPIDLE),
                NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPINTERVAL), NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPCOUNT)}) {
            assertTrue(HabitualOptions.isKernelTcpKnob(o), o.name());
        }
        assertFalse(HabitualOptions.isKernelTcpKnob(ChannelOption.TCP_NODELAY), "TCP_NODELAY is mapped, not ignored");
        assertFalse(HabitualOptions.isKernelTcpKnob(UtpChannelOption.MAX_CONNECTIONS), "a transport's own option is no kernel knob");
        assertFalse(HabitualOptions.isKernelTcpKnob(ChannelOption.valueOf("com.example.Options#TCP_KEEPIDLE")),
                "only Netty's native transports' options are taken by their field name");
    }

    @Test
    void aUtpChannelTakesThemWithNoEffectAndReadsThemBackUnset() {
        try (io.ferry.transport.Transports ferry = io.ferry.transport.Transports.create()) {
            io.netty.channel.Channel ch = ferry.bootstrapping("utp").channelFactory().newChannel();
            try {
                assertTrue(ch.config().setOption(EpollChannelOption.TCP_KEEPIDLE, 60));
                assertTrue(ch.config().setOption(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPIDLE), 60));
                assertNull(ch.config().getOption(EpollChannelOption.TCP_KEEPIDLE), "no kernel keep-alive to read back");
                assertTrue(ch.config().setOption(NioChannelOption.of(java.net.StandardSocketOptions.SO_KEEPALIVE), true));
                assertTrue(ch.config().getOption(ChannelOption.SO_KEEPALIVE), "NIO's SO_KEEPALIVE is Netty's SO_KEEPALIVE");
                assertFalse(ch.config().setOption(ChannelOption.valueOf("com.example.Options#SOMETHING"), 1), "an unknown option is still unknown");
            } finally {
                ch.unsafe().closeForcibly();
            }
        }
    }
}
