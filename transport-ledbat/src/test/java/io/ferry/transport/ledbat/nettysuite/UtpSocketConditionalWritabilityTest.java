package io.ferry.transport.ledbat.nettysuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;
import io.netty.testsuite.transport.socket.SocketConditionalWritabilityTest;

import java.util.List;

/** Netty's own {@code SocketConditionalWritabilityTest} over utp://, through the transport's bootstraps. */
class UtpSocketConditionalWritabilityTest extends SocketConditionalWritabilityTest {
    @Override
    protected List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return FerryPermutations.of("utp");
    }
}
