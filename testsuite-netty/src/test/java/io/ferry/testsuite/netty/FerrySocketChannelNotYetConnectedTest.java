package io.ferry.testsuite.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;

import java.net.SocketAddress;
import java.util.List;

/** Netty's own {@code SocketChannelNotYetConnectedTest} over every transport in {@link FerryPermutations#SCHEMES}, through each one's bootstrap: its tests and assertions are Netty's (inherited). */
class FerrySocketChannelNotYetConnectedTest extends io.netty.testsuite.transport.socket.SocketChannelNotYetConnectedTest {
    @Override
    protected List<TestsuitePermutation.BootstrapFactory<Bootstrap>> newFactories() {
        return FerryPermutations.clients();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return FerryPermutations.loopback();
    }

    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.Disabled(FerryPermutations.TCP_PEER)
    @Override
    public void readMustBePendingUntilChannelIsActive(org.junit.jupiter.api.TestInfo info) {
    }
}
