package io.ferry.transport.udt;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.conformance.TransportConformanceTest;

/**
 * The conformance suite over striped UDT channels of four member connections: a UDT member's framed
 * stream, lingering close and abort carry through a striped channel, and a client's refused connects
 * followed by many concurrent ones (which crashed barchart-udt's native library) are ordinary events.
 */
class StripedUdtConformanceTest extends TransportConformanceTest {

    @Override
    protected String scheme() {
        return "udt";
    }

    /**
     * Four members hold four times one connection's buffers: 2 MiB each way per member keeps what a
     * stalled reader lets the writer queue under the suite's bound (half its 64 MiB), as a user sizes
     * buffers down on loopback.
     */
    @Override
    protected ChannelOptions baseOptions() {
        return ChannelOptions.builder()
                .set(FerryChannelOption.STREAMS, 4)
                .set(UdtChannelOption.UDT_SEND_BUFFER, 2 << 20)
                .set(UdtChannelOption.UDT_RECEIVE_BUFFER, 2 << 20)
                .build();
    }
}
