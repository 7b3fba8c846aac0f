package io.ferry.transport.tcp;

import io.ferry.transport.conformance.FullBacklogPeer;
import io.ferry.transport.Transports;
import io.ferry.transport.conformance.ImpairedPath;
import io.ferry.transport.conformance.SlowTcpRelay;
import io.ferry.transport.conformance.TransportConformanceTest;
import io.ferry.transport.conformance.UnresponsivePeer;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The conformance suite over TCP on portable Java NIO, the fallback where epoll is unavailable. */
class TcpNioConformanceTest extends TransportConformanceTest {

    @Override
    protected String scheme() {
        return "tcp";
    }

    @Override
    protected Transports createTransports() {
        return Transports.of(List.of(new TcpTransportProvider(TcpIo.nio())));
    }

    @Override
    protected UnresponsivePeer openUnresponsivePeer() throws Exception {
        return new FullBacklogPeer();
    }

    @Test
    void suiteRunsOnJavaNio() {
        assertEquals("nio", ((TcpTransport) ferry.transport("tcp")).io().name());
    }

    @Override
    protected ImpairedPath openImpairedPath(InetSocketAddress server) throws Exception {
        return new SlowTcpRelay(server, 2_000_000);
    }

    @Override
    protected boolean closeObservesAcknowledgements() {
        return false; // NIO cannot read TCP_INFO: the close hands the bytes to the kernel
    }
}
