package io.ferry.transport.ledbat.nettysuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;
import io.netty.testsuite.transport.socket.SocketObjectEchoTest;

import java.util.List;

/** Netty's own {@code SocketObjectEchoTest} over utp://, through the transport's bootstraps: its tests and assertions are Netty's (inherited); {@link FerryPermutationsTest} proves the permutation makes uTP channels. */
class UtpSocketObjectEchoTest extends SocketObjectEchoTest {
    @Override
    protected List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return FerryPermutations.of("utp");
    }
}
