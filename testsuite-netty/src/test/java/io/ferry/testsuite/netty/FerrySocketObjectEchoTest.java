package io.ferry.testsuite.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;

import java.net.SocketAddress;
import java.util.List;

/** Netty's own {@code SocketObjectEchoTest} over every transport in {@link FerryPermutations#SCHEMES}, through each one's bootstraps: its tests and assertions are Netty's (inherited). */
class FerrySocketObjectEchoTest extends io.netty.testsuite.transport.socket.SocketObjectEchoTest {
    @Override
    protected List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return FerryPermutations.all();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return FerryPermutations.loopback();
    }
}
