package io.ferry.transport.quic;

import io.ferry.transport.udp.UdpIo;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.quic.EpollQuicUtils;
import io.netty.handler.codec.quic.SegmentedDatagramPacketAllocator;

/**
 * The UDP sockets under QUIC: native epoll where available (receives coalesced with UDP GRO, sends batched
 * with UDP GSO through the codec's segmented allocator), Java NIO elsewhere or with
 * {@code -Dferry.quic.native=false}.
 */
final class QuicIo {

    static final String NATIVE_PROPERTY = "ferry.quic.native";
    /** What one GRO read may coalesce. */
    private static final int COALESCED_READ_SIZE = 65_536;
    /** The UDP socket buffers: a burst of a fast connection's datagrams fits, as quiche's own examples size them. */
    private static final int SOCKET_BUFFER = 4 << 20;

    private final boolean epoll;
    private final boolean gso;

    private QuicIo(boolean epoll) {
        this.epoll = epoll;
        this.gso = epoll && EpollDatagramChannel.isSegmentedDatagramPacketSupported();
    }

    static QuicIo detect() {
        return new QuicIo(Boolean.parseBoolean(System.getProperty(NATIVE_PROPERTY, "true")) && Epoll.isAvailable());
    }

    String name() {
        return epoll ? "epoll" : "nio";
    }

    /** What the statistics call this connection's I/O: the socket implementation and its batching. */
    String implementation(int gsoSegments) {
        return name() + (gso && gsoSegments > 1 ? "+gso" : "") + (epoll ? "+gro" : "");
    }

    IoHandlerFactory newIoHandlerFactory() {
        return epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    }

    Class<? extends DatagramChannel> datagramChannelClass() {
        return epoll ? EpollDatagramChannel.class : NioDatagramChannel.class;
    }

    /** Socket buffers and coalesced reads for a QUIC socket's bootstrap. */
    void configure(Bootstrap bootstrap) {
        bootstrap.option(ChannelOption.SO_RCVBUF, SOCKET_BUFFER).option(ChannelOption.SO_SNDBUF, SOCKET_BUFFER);
        if (epoll) {
            bootstrap.option(EpollChannelOption.UDP_GRO, true);
        }
        // the read count goes on the allocator itself: a FixedRecvByteBufAllocator's own starts at one per loop
        bootstrap.option(ChannelOption.RCVBUF_ALLOCATOR,
                new FixedRecvByteBufAllocator(epoll ? COALESCED_READ_SIZE : 2048).maxMessagesPerRead(UdpIo.READS_PER_LOOP));
    }

    /** Whether listeners bind one socket per event loop to the same port (SO_REUSEPORT, epoll's). */
    boolean reusesPorts() {
        return epoll;
    }

    /** As {@link #configure}, for a listener's socket: with {@code SO_REUSEPORT} where the listener spreads its sockets. */
    void configureListener(Bootstrap bootstrap) {
        configure(bootstrap);
        if (reusesPorts()) {
            bootstrap.option(EpollChannelOption.SO_REUSEPORT, true);
        }
    }

    /** The codec's allocator of GSO batches, or the codec's default (one datagram per write) without GSO. */
    SegmentedDatagramPacketAllocator segmentedAllocator(int segments) {
        return gso && segments > 1 ? EpollQuicUtils.newSegmentedAllocator(segments) : SegmentedDatagramPacketAllocator.NONE;
    }
}
