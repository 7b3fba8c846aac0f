package io.ferry.cli.transfer;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that read, write and hash files, so that no event loop ever waits for a disk or a
 * digest. Daemon threads that stop when idle: nothing needs closing.
 */
public final class DiskThreads {

    private static final ExecutorService SHARED = create(Math.max(2, Runtime.getRuntime().availableProcessors()));

    private DiskThreads() {
    }

    /** The process-wide pool. */
    public static ExecutorService shared() {
        return SHARED;
    }

    private static ExecutorService create(int threads) {
        AtomicInteger count = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "ferry-disk-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
