package io.ferry.cli.transfer;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * Runs tasks one after another, in submission order, on a shared pool: one per file, so a file's reads
 * or writes and its hashing stay ordered while different files use different threads.
 */
final class SerialExecutor implements Executor {
    private final Executor pool;
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private boolean running;

    SerialExecutor(Executor pool) {
        this.pool = pool;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (tasks) {
            tasks.add(task);
            if (running) {
                return;
            }
            running = true;
        }
        pool.execute(this::drain);
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (tasks) {
                next = tasks.poll();
                if (next == null) {
                    running = false;
                    return;
                }
            }
            next.run();
        }
    }
}
