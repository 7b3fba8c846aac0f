package io.ferry.testsuite.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Netty's own {@code SocketConditionalWritabilityTest} over every transport in {@link FerryPermutations#SCHEMES},
 * through each one's bootstraps: its test and assertions are Netty's (inherited), its time limit is not.
 */
class FerrySocketConditionalWritabilityTest extends io.netty.testsuite.transport.socket.SocketConditionalWritabilityTest {
    @Override
    protected List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return FerryPermutations.all();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return FerryPermutations.loopback();
    }

    /**
     * Netty gives the whole test 30 s: 100 MiB in 16 KiB writes under a 16 KiB high water mark, with two
     * allocators, over each transport, which a kernel transport moves in a second or two. Here it is ten
     * transfers through user-space transports on the same two cores; CI's runs took 22 s, and 30 s was
     * overrun under load with every transfer still progressing. The assertion is unchanged.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @Override
    public void testConditionalWritability(TestInfo testInfo) throws Throwable {
        super.testConditionalWritability(testInfo);
    }
}
