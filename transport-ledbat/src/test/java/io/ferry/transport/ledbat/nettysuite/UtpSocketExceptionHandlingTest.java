package io.ferry.transport.ledbat.nettysuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;
import io.netty.testsuite.transport.socket.SocketExceptionHandlingTest;

import java.util.List;

/** Netty's own {@code SocketExceptionHandlingTest} over utp://, through the transport's bootstraps. */
class UtpSocketExceptionHandlingTest extends SocketExceptionHandlingTest {
    @Override
    protected List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return FerryPermutations.of("utp");
    }
}
