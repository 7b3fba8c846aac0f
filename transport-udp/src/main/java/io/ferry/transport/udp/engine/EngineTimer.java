package io.ferry.transport.udp.engine;

import io.netty.util.concurrent.ScheduledFuture;

/**
 * A connection's one pending wake-up on its endpoint's event loop; lives in its channel. The endpoint
 * re-arms it after every call into the connection ({@link EngineEndpoint#afterCall}) and nowhere else.
 */
final class EngineTimer {
    ScheduledFuture<?> future;
    long deadline;
    boolean stopped;

    /** Cancels the pending wake-up for good: the connection is over. */
    void stop() {
        stopped = true;
        if (future != null) {
            future.cancel(false);
            future = null;
        }
    }
}
