package io.ferry.testsuite.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;

import java.net.SocketAddress;
import java.util.List;

/** Netty's own {@code SocketAddressesTest} over every transport in {@link FerryPermutations#SCHEMES}, through each one's bootstraps: its tests and assertions are Netty's (inherited). */
class FerrySocketAddressesTest extends io.netty.testsuite.transport.socket.SocketAddressesTest {
    @Override
    protected List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return FerryPermutations.all();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return FerryPermutations.loopback();
    }

    /** Every Ferry channel's addresses are {@code InetSocketAddress}es with a port (transport-api README, "Netty bootstraps"). */
    @Override
    protected void assertAddress(SocketAddress address) {
        org.junit.jupiter.api.Assertions.assertInstanceOf(java.net.InetSocketAddress.class, address);
        org.junit.jupiter.api.Assertions.assertTrue(((java.net.InetSocketAddress) address).getPort() > 0, String.valueOf(address));
    }
}
