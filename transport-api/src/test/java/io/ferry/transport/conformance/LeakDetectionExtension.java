package io.ferry.transport.conformance;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Fails a test when Netty's leak detector reports a reference-counted buffer that was garbage
 * collected without being released. Requires the detector at {@code paranoid} (the build sets
 * {@code -Dio.netty.leakDetection.level=paranoid} for every test JVM).
 *
 * <p>{@link LeakRecordingSession} installs the recording detectors before any test class loads Netty.
 * After each test it collects garbage and allocates a few tracked buffers, which makes the detector
 * process its queue of collected-but-unreleased buffers and report them.
 */
public final class LeakDetectionExtension implements BeforeAllCallback, AfterEachCallback {

    static final Queue<String> LEAKS = new ConcurrentLinkedQueue<>();

    @Override
    public void beforeAll(ExtensionContext context) {
        assertEquals(ResourceLeakDetector.Level.PARANOID, ResourceLeakDetector.getLevel(),
                "tests must run with -Dio.netty.leakDetection.level=paranoid");
        assertTrue(LeakRecordingSession.installed(), "the leak-recording detector factory is installed");
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        List<String> found = collectLeaks();
        if (!found.isEmpty()) {
            fail(found.size() + " buffer leak(s) detected during " + context.getDisplayName() + ":\n" + String.join("\n", found));
        }
    }

    /** Collects garbage, makes the detector report, and returns (and forgets) every leak reported so far. */
    static List<String> collectLeaks() throws InterruptedException {
        for (int round = 0; round < 4; round++) {
            System.gc();
            Thread.sleep(50);
            provokeLeakReports();
        }
        List<String> found = new ArrayList<>();
        for (String leak; (leak = LEAKS.poll()) != null; ) {
            found.add(leak);
        }
        return found;
    }

    /** Leaks are reported when a new tracked buffer is created; create some of each kind. */
    static void provokeLeakReports() {
        List<ByteBuf> buffers = List.of(
                PooledByteBufAllocator.DEFAULT.directBuffer(16), PooledByteBufAllocator.DEFAULT.heapBuffer(16),
                UnpooledByteBufAllocator.DEFAULT.directBuffer(16), UnpooledByteBufAllocator.DEFAULT.heapBuffer(16));
        buffers.forEach(ByteBuf::release);
    }
}
