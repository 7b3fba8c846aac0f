package io.ferry.transport.ledbat.channel;

import io.ferry.transport.conformance.TransportConformanceTest;
import io.netty.channel.epoll.Epoll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The conformance suite over uTP/LEDBAT on loopback, found through ServiceLoader as users find it. */
class UtpConformanceTest extends TransportConformanceTest {

    @Override
    protected String scheme() {
        return "utp";
    }

    @Test
    void suiteRunsOnTheUtpTransportUsersGetWithItsAlias() {
        UtpTransport utp = (UtpTransport) ferry.transport("utp");
        assertSame(utp, ferry.transport("ledbat"), "ledbat:// is the same transport");
        assertEquals(Epoll.isAvailable() ? "epoll" : "nio", utp.io().name(), "native UDP sockets where the platform has them");
    }
}
