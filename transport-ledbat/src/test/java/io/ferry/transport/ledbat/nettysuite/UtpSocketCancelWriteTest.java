package io.ferry.transport.ledbat.nettysuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;
import io.netty.testsuite.transport.socket.SocketCancelWriteTest;

import java.util.List;

/** Netty's own {@code SocketCancelWriteTest} over utp://, through the transport's bootstraps: its tests and assertions are Netty's (inherited); {@link FerryPermutationsTest} proves the permutation makes uTP channels. */
class UtpSocketCancelWriteTest extends SocketCancelWriteTest {
    @Override
    protected List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return FerryPermutations.of("utp");
    }
}
