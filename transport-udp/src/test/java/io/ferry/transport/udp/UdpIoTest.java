package io.ferry.transport.udp;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MaxMessagesRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.DatagramChannel;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A socket configured by {@link UdpIo#configureReads} reads {@link UdpIo#READS_PER_LOOP} datagrams a loop:
 * the allocator it sets carries the count (a bare {@code FixedRecvByteBufAllocator} reads one).
 */
class UdpIoTest {

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aConfiguredSocketReadsManyDatagramsPerLoop(boolean nativeIo) throws Exception {
        String prefix = "ferry.udptest." + nativeIo;
        System.setProperty(prefix + UdpIo.NATIVE, Boolean.toString(nativeIo));
        UdpIo io = UdpIo.detect(prefix);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, io.newIoHandlerFactory());
        try {
            Bootstrap b = new Bootstrap().group(group).channel(io.datagramChannelClass()).handler(new ChannelInboundHandlerAdapter());
            io.configureReads(b, 1500);
            DatagramChannel ch = (DatagramChannel) b.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            try {
                MaxMessagesRecvByteBufAllocator alloc = ch.config().getRecvByteBufAllocator();
                assertEquals(UdpIo.READS_PER_LOOP, alloc.maxMessagesPerRead(), io.name());
            } finally {
                ch.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            System.clearProperty(prefix + UdpIo.NATIVE);
        }
    }
}
