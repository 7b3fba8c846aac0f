package io.ferry.transport.tcp;

import io.ferry.transport.conformance.FullBacklogPeer;
import io.ferry.transport.Transports;
import io.ferry.transport.conformance.ImpairedPath;
import io.ferry.transport.conformance.SlowTcpRelay;
import io.ferry.transport.conformance.TransportConformanceTest;
import io.ferry.transport.conformance.UnresponsivePeer;

import io.netty.channel.epoll.Epoll;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The conformance suite over TCP on native epoll, found through ServiceLoader as users find it. */
class TcpEpollConformanceTest extends TransportConformanceTest {

    @Override
    protected String scheme() {
        return "tcp";
    }

    @Override
    protected Transports createTransports() {
        Transports discovered = Transports.create();
        String io = ((TcpTransport) discovered.transport("tcp")).io().name();
        if (!io.equals("epoll")) {
            discovered.close();
            // Not Linux, or the native library did not load: still run the suite, on what is there.
            System.out.println("TcpEpollConformanceTest: native epoll unavailable, testing " + io);
            return Transports.of(List.of(new TcpTransportProvider()));
        }
        return discovered;
    }

    @Override
    protected UnresponsivePeer openUnresponsivePeer() throws Exception {
        return new FullBacklogPeer();
    }

    @Test
    void suiteRunsOnNativeEpollWhereLinuxHasIt() {
        assertEquals(Epoll.isAvailable() ? "epoll" : "nio", ((TcpTransport) ferry.transport("tcp")).io().name(),
                "ServiceLoader gives users epoll where it loads");
    }

    @Override
    protected ImpairedPath openImpairedPath(InetSocketAddress server) throws Exception {
        return new SlowTcpRelay(server, 2_000_000);
    }
}
