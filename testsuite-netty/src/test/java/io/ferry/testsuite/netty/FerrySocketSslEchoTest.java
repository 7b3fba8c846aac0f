package io.ferry.testsuite.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;

import java.net.SocketAddress;
import java.util.List;

/** Netty's own {@code SocketSslEchoTest} over utp:// (striped channels take TLS in the suite's other TLS classes; here they would add half a minute to verify; over udt:// one of 384 runs stalled a write: see the API module's README), through each one's bootstraps: its tests and assertions are Netty's (inherited). */
class FerrySocketSslEchoTest extends io.netty.testsuite.transport.socket.SocketSslEchoTest {
    @Override
    protected List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return List.of(FerryPermutations.of("utp"));
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return FerryPermutations.loopback();
    }
}
