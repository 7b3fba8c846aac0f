package io.ferry.flight;

import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Whether Arrow's memory can work in this JVM. Arrow reads a direct buffer's address through
 * {@code java.nio} internals, which JDK 17 and later open only with
 * {@code --add-opens=java.base/java.nio=ALL-UNNAMED}; without it Arrow's {@code MemoryUtil.directBuffer} fails on
 * the first record batch, on a gRPC thread, and a DoPut or DoGet waits forever ({@code isReady()}
 * never true) with the cause only in a future nobody reads. Checked once when a Flight server or client is
 * made, so that the application fails at once, saying what to add.
 */
final class ArrowMemoryAccess {

    private static volatile Throwable refused;
    private static volatile boolean checked;

    private ArrowMemoryAccess() {
    }

    /**
     * @throws IllegalStateException naming the JVM flag Arrow needs, with the JVM's refusal as the cause
     */
    static void require() {
        if (!checked) {
            long address = 0;
            try {
                // what Flight does with every record batch it sends: view Arrow memory as a direct ByteBuffer
                address = MemoryUtil.allocateMemory(8);
                MemoryUtil.directBuffer(address, 8);
            } catch (Throwable e) { // UnsupportedOperationException, or Arrow's memory failing to initialise at all
                refused = e;
            } finally {
                if (address != 0) {
                    MemoryUtil.freeMemory(address);
                }
            }
            checked = true;
        }
        Throwable cause = refused;
        if (cause != null) {
            throw new IllegalStateException("Arrow's memory cannot work in this JVM: run it with "
                    + "--add-opens=java.base/java.nio=ALL-UNNAMED (Arrow needs it on JDK 17 and later); the JVM said: "
                    + rootMessage(cause), cause);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getName() + (t.getMessage() != null ? ": " + t.getMessage() : "");
    }
}
