package io.ferry.transport.ledbat.channel;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.conformance.TransportConformanceTest;

/**
 * The conformance suite over striped uTP channels of four member connections: a striped channel works
 * over any transport, and a uTP member's lingering close, loss accounting and abort carry through it.
 */
class StripedUtpConformanceTest extends TransportConformanceTest {

    @Override
    protected String scheme() {
        return "utp";
    }

    @Override
    protected ChannelOptions baseOptions() {
        return ChannelOptions.builder().set(FerryChannelOption.STREAMS, 4).build();
    }
}
