package io.ferry.testsuite.engines;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Notices an event loop that runs no task for seconds, and records where its thread is then. A stalled loop
 * freezes every connection on it at once, and its timers then fire before the datagrams that waited are
 * read: peers taken for gone though they spoke. A failure report that carries the loop's stack says why.
 */
final class LoopStallWatch implements AutoCloseable {
    private static final long PERIOD_MILLIS = 100;
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** A stall is sampled again every this long while it lasts, at most {@link #SAMPLES} times. */
    private static final long RESAMPLE_NANOS = TimeUnit.SECONDS.toNanos(3);
    private static final int SAMPLES = 3;

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "loop-stall-watch");
        t.setDaemon(true);
        return t;
    });
    private final List<String> stalls = Collections.synchronizedList(new ArrayList<>());

    LoopStallWatch(EventExecutorGroup group) {
        for (EventExecutor loop : group) {
            Probe probe = new Probe(loop);
            timer.scheduleAtFixedRate(probe::tick, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** What was seen, one entry per sample of a stall, or that no loop stalled (which rules a cause out). */
    String report() {
        synchronized (stalls) {
            return stalls.isEmpty() ? " [no event loop went " + STALL_NANOS / 1_000_000_000 + " s without running a task]"
                    : " [event loop stalls: " + String.join("; ", stalls) + "]";
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    private final class Probe {
        private final EventExecutor loop;
        private volatile Thread thread;
        private volatile long lastRun = System.nanoTime();
        private long sampledAt;
        private int samples;

        Probe(EventExecutor loop) {
            this.loop = loop;
        }

        void tick() {
            long now = System.nanoTime();
            long quiet = now - lastRun;
            Thread t = thread;
            if (quiet < STALL_NANOS) {
                samples = 0;
            } else if (t != null && samples < SAMPLES && (samples == 0 || now - sampledAt >= RESAMPLE_NANOS)) {
                samples++;
                sampledAt = now;
                String frames = Arrays.stream(t.getStackTrace()).limit(30).map(String::valueOf).collect(Collectors.joining(" < "));
                String line = t.getName() + " ran no task for " + quiet / 1_000_000 + " ms (" + t.getState() + "): " + frames;
                System.err.println("LOOP STALL " + line);
                stalls.add(line);
            }
            try {
                loop.execute(() -> {
                    thread = Thread.currentThread();
                    lastRun = System.nanoTime();
                });
            } catch (RejectedExecutionException shutDown) {
                lastRun = now;
            }
        }
    }
}
