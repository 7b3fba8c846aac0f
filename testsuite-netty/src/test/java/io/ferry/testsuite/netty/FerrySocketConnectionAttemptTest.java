package io.ferry.testsuite.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;

import java.net.SocketAddress;
import java.util.List;

/** Netty's own {@code SocketConnectionAttemptTest} over utp:// and striped channels (its refused tests dial {@code NetUtil.LOCALHOST}, ::1 here, and udt:// is IPv4 only), through each one's bootstrap: its tests and assertions are Netty's (inherited). */
class FerrySocketConnectionAttemptTest extends io.netty.testsuite.transport.socket.SocketConnectionAttemptTest {
    @Override
    protected List<TestsuitePermutation.BootstrapFactory<Bootstrap>> newFactories() {
        return FerryPermutations.clients("utp", "tcp?streams=1", "tcp?streams=4");
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return FerryPermutations.loopback();
    }
}
