package io.ferry.transport.ledbat.nettysuite;

import io.ferry.transport.Bootstrapping;
import io.ferry.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;

import java.util.List;

/** Ferry's permutation for Netty's socket test suite: the transport's own bootstraps, as Netty's {@code SocketTestPermutation} gives epoll's. */
final class FerryPermutations {

    /**
     * Servers and clients on groups of their own, as Netty's permutations give each end its own event loop:
     * some tests block one end's loop while the other end acts ({@code SocketHalfClosedTest}'s auto-close
     * test), and a uTP connection lives on its UDP socket's loop, which one shared group could give both ends.
     */
    private static final Transports SERVERS = Transports.create();
    private static final Transports CLIENTS = Transports.create();

    /**
     * Why {@code SocketHalfClosedTest.testAutoCloseFalseDoesShutdownOutput} does not apply to a user-space
     * transport: it blocks one end's event loop for the whole exchange and expects the kernel to carry the
     * protocol meanwhile (send that end's first write, take the peer's reset, fail the next write at once).
     * uTP and UDT run their protocol on that loop (UDT's library sends from its own thread, but Ferry's
     * flush and the reset's notice need the loop).
     */
    static final String LOOP_BLOCKED = "blocks an end's event loop for the whole exchange and expects the kernel to send, "
            + "receive the peer's reset and fail the next write meanwhile; a user-space transport's protocol runs on that loop";

    static List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> of(String scheme) {
        Bootstrapping servers = SERVERS.bootstrapping(scheme);
        Bootstrapping clients = CLIENTS.bootstrapping(scheme);
        return List.of(new TestsuitePermutation.BootstrapComboFactory<>() {
            @Override
            public ServerBootstrap newServerInstance() {
                return servers.serverBootstrap();
            }

            @Override
            public Bootstrap newClientInstance() {
                return clients.bootstrap();
            }
        });
    }

    private FerryPermutations() {
    }
}
