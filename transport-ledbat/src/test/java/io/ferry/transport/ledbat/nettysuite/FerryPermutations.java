package io.ferry.transport.ledbat.nettysuite;

import io.ferry.transport.Bootstrapping;
import io.ferry.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;

import java.util.List;

/** Ferry's permutation for Netty's socket test suite: the transport's own bootstraps, as Netty's {@code SocketTestPermutation} gives epoll's. */
final class FerryPermutations {

    private static final Transports FERRY = Transports.create();

    static List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> of(String scheme) {
        Bootstrapping parts = FERRY.bootstrapping(scheme);
        return List.of(new TestsuitePermutation.BootstrapComboFactory<>() {
            @Override
            public ServerBootstrap newServerInstance() {
                return parts.serverBootstrap();
            }

            @Override
            public Bootstrap newClientInstance() {
                return parts.bootstrap();
            }
        });
    }

    private FerryPermutations() {
    }
}
