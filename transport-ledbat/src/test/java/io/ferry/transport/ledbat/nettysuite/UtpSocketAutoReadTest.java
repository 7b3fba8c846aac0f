package io.ferry.transport.ledbat.nettysuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;
import io.netty.testsuite.transport.socket.SocketAutoReadTest;

import java.util.List;

/** Netty's own {@code SocketAutoReadTest} over utp://, through the transport's bootstraps: its tests and assertions are Netty's (inherited); {@link FerryPermutationsTest} proves the permutation makes uTP channels. */
class UtpSocketAutoReadTest extends SocketAutoReadTest {
    @Override
    protected List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return FerryPermutations.of("utp");
    }
}
