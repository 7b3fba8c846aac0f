package io.ferry.examples.pipeline;

import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The record pipeline over every installed transport: intact, in order, and bounded by backpressure end to end. */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RecordPipelineTest {

    private static final long RECORDS = 20_000;
    private static final int SIZE = 1024;
    private static final int QUEUE_LIMIT = 128;

    @ParameterizedTest
    @MethodSource("io.ferry.examples.InstalledTransports#schemes")
    void aSlowConsumerStopsTheProducerAndEveryRecordArrivesInOrder(String scheme) throws Exception {
        try (Transports ferry = Transports.create()) {
            RecordPipeline.Result r = RecordPipeline.run(ferry, scheme, RECORDS, SIZE, QUEUE_LIMIT, 50);
            assertTrue(r.intact(), "all records, in order, unchanged: " + r);
            assertTrue(r.produced().pauses() > 0, "the producer was stopped by backpressure: " + r.produced());
            // Without backpressure the producer would queue all 20 MiB and the consumer thousands of records.
            assertTrue(r.produced().maxPendingBytes() < (2 << 20), "producer's queued bytes stay bounded: " + r.produced());
            assertTrue(r.consumed().maxQueued() < QUEUE_LIMIT + 2048, "consumer's queue stays bounded: " + r.consumed());
        }
    }
}
