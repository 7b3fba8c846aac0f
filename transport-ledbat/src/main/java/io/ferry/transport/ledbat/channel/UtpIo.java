package io.ferry.transport.ledbat.channel;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;

/**
 * The UDP socket implementation under uTP: Netty's native epoll datagram channel on Linux, Java NIO
 * elsewhere or when {@code -Dferry.utp.native=false}.
 *
 * <p>With epoll a listener binds one socket per event loop with {@code SO_REUSEPORT}, so that the
 * kernel spreads its connections over the loops by the hash of their addresses and ports, as TCP's
 * accepted children are spread; {@code -Dferry.utp.reusePort=false} keeps one socket.
 */
public final class UtpIo {

    /** System property that, set to {@code false}, forces Java NIO. */
    public static final String NATIVE_PROPERTY = "ferry.utp.native";
    /** System property that, set to {@code false}, keeps a listener on one socket and one event loop. */
    public static final String REUSE_PORT_PROPERTY = "ferry.utp.reusePort";

    private final boolean epoll;
    private final boolean reusePort;

    private UtpIo(boolean epoll) {
        this.epoll = epoll;
        this.reusePort = epoll && Boolean.parseBoolean(System.getProperty(REUSE_PORT_PROPERTY, "true"));
    }

    /** Epoll where available and not disabled, NIO otherwise. */
    public static UtpIo detect() {
        return new UtpIo(Boolean.parseBoolean(System.getProperty(NATIVE_PROPERTY, "true")) && Epoll.isAvailable());
    }

    /** Java NIO. */
    public static UtpIo nio() {
        return new UtpIo(false);
    }

    /** {@code epoll} or {@code nio}. */
    public String name() {
        return epoll ? "epoll" : "nio";
    }

    /** How many sockets a listener binds when its transport has {@code loops} event loops. */
    int listenerSockets(int loops) {
        return reusePort ? Math.max(1, loops) : 1;
    }

    /** Lets several sockets of this process bind one address (only when {@link #listenerSockets} is above one). */
    void allowSharedPort(Bootstrap bootstrap) {
        if (reusePort) {
            bootstrap.option(EpollChannelOption.SO_REUSEPORT, true);
        }
    }

    IoHandlerFactory newIoHandlerFactory() {
        return epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    }

    Class<? extends DatagramChannel> datagramChannelClass() {
        return epoll ? EpollDatagramChannel.class : NioDatagramChannel.class;
    }
}
