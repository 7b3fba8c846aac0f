package io.ferry.bench.emulator;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * One direction of the TUN emulator on one thread: reads IP packets from one device, passes each
 * through a {@link LinkDirection}, keeps the accepted ones until they are due and writes them to the
 * other device. Waiting uses {@code ppoll} with a nanosecond timeout set to the next delivery time, so
 * the thread sleeps when there is nothing to do.
 */
final class TunForwarder implements Runnable {

    private static final long IDLE_WAIT_NANOS = 50_000_000L;
    private static final int READ_BATCH = 256;

    private final TunDevice from;
    private final TunDevice to;
    private final LinkDirection link;
    private final ArrayDeque<TimedPacket> inFlight = new ArrayDeque<>();
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(65_536);
    private final ByteBuffer writeBuffer = ByteBuffer.allocateDirect(65_536);
    private volatile boolean running = true;
    private volatile long writeErrors;
    private volatile Throwable failure;

    TunForwarder(TunDevice from, TunDevice to, LinkDirection link) {
        this.from = from;
        this.to = to;
        this.link = link;
    }

    void stop() {
        running = false;
    }

    long writeErrors() {
        return writeErrors;
    }

    Throwable failure() {
        return failure;
    }

    @Override
    public void run() {
        try {
            while (running) {
                long now = System.nanoTime();
                deliverDue(now);
                long wait = inFlight.isEmpty() ? IDLE_WAIT_NANOS : inFlight.peekFirst().due() - now;
                int n = from.read(readBuffer, wait);
                for (int i = 0; n > 0; i++) {
                    accept(n);
                    if (i == READ_BATCH) {
                        break;
                    }
                    n = from.readNow(readBuffer);
                }
            }
        } catch (IOException | RuntimeException e) {
            failure = e;
        }
    }

    private void accept(int length) {
        long due = link.offer(length, System.nanoTime());
        if (due < 0) {
            return;
        }
        byte[] copy = new byte[length];
        readBuffer.get(0, copy, 0, length);
        inFlight.addLast(new TimedPacket(due, copy));
    }

    private void deliverDue(long now) throws IOException {
        while (!inFlight.isEmpty() && inFlight.peekFirst().due() <= now) {
            byte[] data = inFlight.pollFirst().data();
            writeBuffer.put(0, data, 0, data.length);
            try {
                to.write(writeBuffer, data.length);
            } catch (IOException e) {
                writeErrors++;
            }
        }
    }
}
