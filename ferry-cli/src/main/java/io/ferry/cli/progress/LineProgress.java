package io.ferry.cli.progress;

import io.ferry.cli.transfer.ProgressListener;

import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Progress as plain lines, at most one round per interval, for logs and pipes where a redrawn bar
 * would be noise: one line per file in flight, {@code big.iso: 512.0 MiB of 1.0 GiB (50%) at 480.2 MiB/s, ETA 1.1s},
 * and, for several files, an {@code all files:} line.
 */
public final class LineProgress implements ProgressListener {

    private final PrintStream out;
    private final long intervalNanos;
    private final Map<Integer, ActiveFile> active = new LinkedHashMap<>();
    private int files;
    private long totalBytes;
    private long finishedBytes;
    private long sessionStartNanos;
    private long lastPrintNanos;

    public LineProgress(PrintStream out, Duration interval) {
        this.out = out;
        this.intervalNanos = interval.toNanos();
    }

    @Override
    public synchronized void sessionStarted(int files, long totalBytes) {
        this.files = files;
        this.totalBytes = totalBytes;
        this.sessionStartNanos = System.nanoTime();
        this.lastPrintNanos = sessionStartNanos;
    }

    @Override
    public synchronized void fileStarted(int id, String name, long size, long resumedFrom) {
        active.put(id, new ActiveFile(name, size, resumedFrom));
        if (resumedFrom > 0 && resumedFrom < size) {
            out.printf(Locale.ROOT, "%s: resuming after %s already at the receiver%n", name, Sizes.bytes(resumedFrom));
            out.flush();
        }
    }

    @Override
    public synchronized void fileAdvanced(int id, long done) {
        ActiveFile file = active.get(id);
        if (file == null) {
            return;
        }
        file.done = done;
        long now = System.nanoTime();
        if (now - lastPrintNanos < intervalNanos) {
            return;
        }
        lastPrintNanos = now;
        long all = finishedBytes;
        for (ActiveFile f : active.values()) {
            all += f.done;
            if (f.done < f.size) {
                line(f.name, f.done - f.resumedFrom, f.done, f.size, now - f.startNanos);
            }
        }
        if (files > 1) {
            line("all files", all, all, totalBytes, now - sessionStartNanos);
        }
        out.flush();
    }

    private void line(String name, long moved, long done, long size, long nanos) {
        double rate = moved / Math.max(nanos / 1e9, 1e-9);
        String eta = rate > 0 ? Sizes.seconds((size - done) / rate) : "unknown";
        out.printf(Locale.ROOT, "%s: %s of %s (%d%%) at %s, ETA %s%n", name, Sizes.bytes(done), Sizes.bytes(size),
                size == 0 ? 100 : done * 100 / size, Sizes.rate(rate), eta);
    }

    @Override
    public synchronized void fileFinished(int id, boolean ok) {
        ActiveFile file = active.remove(id);
        if (file != null) {
            finishedBytes += file.size;
        }
    }
}
