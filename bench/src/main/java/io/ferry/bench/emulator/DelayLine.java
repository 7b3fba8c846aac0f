package io.ferry.bench.emulator;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Holds datagrams until their delivery time and then sends them, on its own thread. Delivery times
 * arrive in non-decreasing order (fixed delay after a FIFO queue), so a deque suffices.
 */
final class DelayLine implements AutoCloseable {

    private record Scheduled(long due, byte[] data, DatagramSocket via, SocketAddress to) {
    }

    private final ArrayDeque<Scheduled> pending = new ArrayDeque<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long sendErrors;

    DelayLine(String name) {
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    void schedule(long due, byte[] data, DatagramSocket via, SocketAddress to) {
        lock.lock();
        try {
            pending.addLast(new Scheduled(due, data, via, to));
            if (pending.size() == 1) {
                changed.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    long sendErrors() {
        return sendErrors;
    }

    private void run() {
        while (running) {
            Scheduled next;
            lock.lock();
            try {
                next = pending.peekFirst();
                long wait = next == null ? TimeUnit.MILLISECONDS.toNanos(50) : next.due() - System.nanoTime();
                if (wait > 0) {
                    changed.awaitNanos(wait);
                    continue;
                }
                pending.pollFirst();
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            try {
                next.via().send(new DatagramPacket(next.data(), next.data().length, next.to()));
            } catch (IOException e) {
                sendErrors++;
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(2_000);
    }
}
