package io.ferry.transport.udt;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.conformance.TransportConformanceTest;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The conformance suite over UDT on loopback, found through ServiceLoader as users find it. */
class UdtConformanceTest extends TransportConformanceTest {

    @Override
    protected String scheme() {
        return "udt";
    }

    /**
     * UDT's defaults buffer 32 MiB each way for long fat paths; the suite's stalled-reader test allows
     * at most half of its 64 MiB in flight, so on loopback the buffers are sized down as a user would.
     */
    @Override
    protected ChannelOptions baseOptions() {
        return ChannelOptions.builder()
                .set(UdtChannelOption.UDT_SEND_BUFFER, 8 << 20)
                .set(UdtChannelOption.UDT_RECEIVE_BUFFER, 8 << 20)
                .build();
    }

    @Test
    void suiteRunsOnFerrysOwnUdtChannels() {
        UdtTransport udt = assertInstanceOf(UdtTransport.class, ferry.transport("udt"));
        assertTrue(udt.toString().equals("udt/epoll") || udt.toString().equals("udt/nio"), udt.toString());
    }
}
