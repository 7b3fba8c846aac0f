package io.ferry.testsuite.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;

import java.net.SocketAddress;
import java.util.List;

/** Netty's own {@code SocketMultipleConnectTest} over utp://, udt:// and striped channels (it binds its server to {@code NetUtil.LOCALHOST}, ::1 here), through each one's bootstraps: its tests and assertions are Netty's (inherited). */
class FerrySocketMultipleConnectTest extends io.netty.testsuite.transport.socket.SocketMultipleConnectTest {
    @Override
    protected List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return List.of(FerryPermutations.of("utp"), FerryPermutations.of("udt"), FerryPermutations.of("tcp?streams=1"), FerryPermutations.of("tcp?streams=4"));
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return FerryPermutations.loopback();
    }
}
