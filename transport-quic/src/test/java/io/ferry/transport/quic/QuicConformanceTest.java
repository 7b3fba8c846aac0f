package io.ferry.transport.quic;

import io.ferry.transport.conformance.TransportConformanceTest;
import io.netty.channel.epoll.Epoll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The conformance suite over QUIC on loopback, found through ServiceLoader as users find it. */
class QuicConformanceTest extends TransportConformanceTest {

    @Override
    protected String scheme() {
        return "quic";
    }

    @Test
    void suiteRunsOnNativeSocketsWhereThePlatformHasThem() {
        QuicTransport quic = (QuicTransport) ferry.transport("quic");
        assertEquals(Epoll.isAvailable() ? "epoll" : "nio", quic.io().name());
    }
}
