package io.ferry.transport.udt;

import io.ferry.transport.Bootstrapping;
import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** UDT is IPv4 only (barchart's JNI): the IPv6 wildcard that {@code bind(port)} gives is IPv4's, any other IPv6 address a clear error. */
class UdtAddressesTest {

    private static final Transports FERRY = Transports.create();

    @AfterAll
    static void close() {
        FERRY.close();
    }

    @Test
    void bindingAPortOnlyListensOnEveryIpv4Address() throws Exception {
        Bootstrapping udt = FERRY.bootstrapping("udt");
        Channel server = udt.serverBootstrap().childHandler(new ChannelInboundHandlerAdapter())
                .bind(new InetSocketAddress(InetAddress.getByName("::"), 0)).sync().channel();
        try {
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            Channel client = udt.bootstrap().handler(new ChannelInboundHandlerAdapter())
                    .connect(new InetSocketAddress("127.0.0.1", port)).sync().channel();
            assertTrue(client.isActive());
            client.close().sync();
        } finally {
            server.close().sync();
        }
    }

    @Test
    void anIpv6AddressIsRefusedByName() throws Exception {
        Bootstrapping udt = FERRY.bootstrapping("udt");
        ChannelFuture bind = udt.serverBootstrap().childHandler(new ChannelInboundHandlerAdapter())
                .bind(new InetSocketAddress(InetAddress.getByName("::1"), 0)).await();
        IllegalArgumentException bindFailure = assertInstanceOf(IllegalArgumentException.class, bind.cause());
        assertTrue(bindFailure.getMessage().contains("IPv4 only"), bindFailure.getMessage());

        ChannelFuture connect = udt.bootstrap().handler(new ChannelInboundHandlerAdapter())
                .connect(new InetSocketAddress(InetAddress.getByName("::1"), 9)).await();
        Throwable connectFailure = connect.cause();
        assertTrue(connectFailure.getMessage().contains("IPv4 only"), String.valueOf(connectFailure));
        assertEquals(false, connect.channel().isOpen());
    }
}
