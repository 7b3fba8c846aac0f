package io.ferry.examples.progress;

import io.ferry.examples.transfer.ProgressListener;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Progress as plain lines, at most one per interval, for logs and pipes where a redrawn bar would
 * be noise: {@code big.iso: 512.0 MiB of 1.0 GiB (50%) at 480.2 MiB/s, ETA 1.1s}.
 */
public final class LineProgress implements ProgressListener {
    private final PrintStream out;
    private final long intervalNanos;
    private String name;
    private long size;
    private long startNanos;
    private long lastPrintNanos;

    public LineProgress(PrintStream out, java.time.Duration interval) {
        this.out = out;
        this.intervalNanos = interval.toNanos();
    }

    @Override
    public synchronized void started(String name, long size) {
        this.name = name;
        this.size = size;
        this.startNanos = System.nanoTime();
        this.lastPrintNanos = startNanos;
    }

    @Override
    public synchronized void advanced(long total) {
        long now = System.nanoTime();
        if (now - lastPrintNanos < intervalNanos || total >= size) {
            return;
        }
        lastPrintNanos = now;
        double seconds = (now - startNanos) / 1e9;
        double rate = total / Math.max(seconds, 1e-9);
        String eta = rate > 0 ? Sizes.seconds((size - total) / rate) : "unknown";
        out.printf(Locale.ROOT, "%s: %s of %s (%d%%) at %s, ETA %s%n", name, Sizes.bytes(total), Sizes.bytes(size),
                size == 0 ? 100 : total * 100 / size, Sizes.rate(rate), eta);
        out.flush();
    }

    @Override
    public void finished() {
        // the command prints the summary line
    }
}
