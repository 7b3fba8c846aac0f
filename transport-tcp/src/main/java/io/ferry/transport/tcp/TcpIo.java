package io.ferry.transport.tcp;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * Which Netty I/O implementation carries TCP: native epoll on Linux, where it gives per-connection
 * congestion control, pacing, MSS and {@code TCP_INFO} statistics, or portable Java NIO.
 *
 * <p>{@link #detect()} picks epoll when Netty's native library loads, unless the system property
 * {@code ferry.tcp.native} is {@code false}.
 */
public final class TcpIo {

    /** System property that, set to {@code false}, forces Java NIO even where epoll works. */
    public static final String NATIVE_PROPERTY = "ferry.tcp.native";

    private final String name;
    private final Supplier<IoHandlerFactory> ioHandlerFactory;
    private final Class<? extends SocketChannel> channelClass;
    private final Class<? extends ServerChannel> serverChannelClass;
    private final Throwable nativeUnavailabilityCause;

    private TcpIo(String name, Supplier<IoHandlerFactory> ioHandlerFactory, Class<? extends SocketChannel> channelClass,
                  Class<? extends ServerChannel> serverChannelClass, Throwable nativeUnavailabilityCause) {
        this.name = name;
        this.ioHandlerFactory = ioHandlerFactory;
        this.channelClass = channelClass;
        this.serverChannelClass = serverChannelClass;
        this.nativeUnavailabilityCause = nativeUnavailabilityCause;
    }

    /** Native epoll if it is available and not disabled, Java NIO otherwise. */
    public static TcpIo detect() {
        if (!Boolean.parseBoolean(System.getProperty(NATIVE_PROPERTY, "true"))) {
            return new TcpIo("nio", NioIoHandler::newFactory, NioSocketChannel.class, NioServerSocketChannel.class,
                    new IllegalStateException("disabled by -D" + NATIVE_PROPERTY + "=false"));
        }
        if (Epoll.isAvailable()) {
            return epoll();
        }
        return new TcpIo("nio", NioIoHandler::newFactory, NioSocketChannel.class, NioServerSocketChannel.class,
                Epoll.unavailabilityCause());
    }

    /** Native epoll; fails if Netty's native library cannot load here. */
    public static TcpIo epoll() {
        Epoll.ensureAvailability();
        return new TcpIo("epoll", EpollIoHandler::newFactory, EpollSocketChannel.class, EpollServerSocketChannel.class, null);
    }

    /** Java NIO, on every platform. */
    public static TcpIo nio() {
        return new TcpIo("nio", NioIoHandler::newFactory, NioSocketChannel.class, NioServerSocketChannel.class,
                new IllegalStateException("Java NIO was chosen explicitly"));
    }

    /** {@code epoll} or {@code nio}; reported as the statistics' implementation. */
    public String name() {
        return name;
    }

    /** Whether this is native epoll. */
    public boolean isNative() {
        return nativeUnavailabilityCause == null;
    }

    /** Why native epoll is not in use, if it is not. */
    public Optional<Throwable> nativeUnavailabilityCause() {
        return Optional.ofNullable(nativeUnavailabilityCause);
    }

    IoHandlerFactory newIoHandlerFactory() {
        return ioHandlerFactory.get();
    }

    Class<? extends SocketChannel> channelClass() {
        return channelClass;
    }

    Class<? extends ServerChannel> serverChannelClass() {
        return serverChannelClass;
    }

    @Override
    public String toString() {
        return name;
    }
}
