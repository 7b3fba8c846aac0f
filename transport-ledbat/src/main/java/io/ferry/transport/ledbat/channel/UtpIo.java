package io.ferry.transport.ledbat.channel;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;

/**
 * The UDP socket implementation under uTP: Netty's native epoll datagram channel on Linux, Java NIO
 * elsewhere or when {@code -Dferry.utp.native=false}.
 */
public final class UtpIo {

    /** System property that, set to {@code false}, forces Java NIO. */
    public static final String NATIVE_PROPERTY = "ferry.utp.native";

    private final boolean epoll;

    private UtpIo(boolean epoll) {
        this.epoll = epoll;
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

    IoHandlerFactory newIoHandlerFactory() {
        return epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    }

    Class<? extends DatagramChannel> datagramChannelClass() {
        return epoll ? EpollDatagramChannel.class : NioDatagramChannel.class;
    }
}
