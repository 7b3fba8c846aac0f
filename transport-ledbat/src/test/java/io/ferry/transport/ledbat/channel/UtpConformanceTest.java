package io.ferry.transport.ledbat.channel;

import io.ferry.transport.conformance.TransportConformanceTest;

/** The conformance suite over uTP/LEDBAT on loopback, found through ServiceLoader as users find it. */
class UtpConformanceTest extends TransportConformanceTest {

    @Override
    protected String scheme() {
        return "utp";
    }
}
