package io.ferry.transport.ledbat.nettysuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;
import io.netty.testsuite.transport.socket.SocketFixedLengthEchoTest;

import java.util.List;

/** Netty's own {@code SocketFixedLengthEchoTest} over utp://, through the transport's bootstraps. */
class UtpSocketFixedLengthEchoTest extends SocketFixedLengthEchoTest {
    @Override
    protected List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return FerryPermutations.of("utp");
    }
}
