package io.ferry.transport.conformance;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Proves the leak check the conformance suite relies on really catches an unreleased buffer. */
class LeakDetectionExtensionTest {

    @Test
    void reportsABufferThatWasNeverReleased() throws Exception {
        LeakDetectionExtension.collectLeaks(); // start clean
        leakOneBuffer();
        List<String> leaks = List.of();
        for (int attempt = 0; attempt < 20 && leaks.isEmpty(); attempt++) {
            leaks = LeakDetectionExtension.collectLeaks();
        }
        assertFalse(leaks.isEmpty(), "the unreleased buffer is reported");
        assertTrue(leaks.get(0).contains("ByteBuf"), leaks.get(0));
    }

    @Test
    void releasedBuffersAreNotReported() throws Exception {
        LeakDetectionExtension.collectLeaks();
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        buf.writeLong(42);
        buf.release();
        assertTrue(LeakDetectionExtension.collectLeaks().isEmpty());
    }

    private static void leakOneBuffer() {
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        buf.writeLong(System.nanoTime()); // a distinct access record so the report is not deduplicated
    }
}
