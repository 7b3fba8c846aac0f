package io.ferry.cli.progress;

import java.util.ArrayDeque;

/**
 * The one line of progress a terminal shows for a session, as text that fits a given width: what has
 * moved of what, the rate over the last seconds, and the time left. Pure (the caller gives the time),
 * so that the line is tested at 80 and 120 columns without a terminal.
 *
 * <p>The rate counts only bytes moved in this session (not what a resumed file already had at the
 * receiver) over a window of {@link #WINDOW_NANOS}, and is shown once a second of it has passed: an
 * average since the start overshot under {@code --limit-rate} while the first buffers filled, and one
 * that counted resumed bytes showed rates no link had.
 */
public final class StatusLine {

    static final long WINDOW_NANOS = 3_000_000_000L;
    static final long FIRST_RATE_NANOS = 1_000_000_000L;

    private final ArrayDeque<long[]> samples = new ArrayDeque<>();
    private final long startNanos;
    private int files;
    private long totalBytes;
    private int finishedFiles;
    private long done;
    private long resumed;
    private String current = "";

    public StatusLine(long startNanos) {
        this.startNanos = startNanos;
        samples.add(new long[]{startNanos, 0});
    }

    /** A session of {@code files} files and {@code totalBytes}. */
    public void session(int files, long totalBytes) {
        this.files = files;
        this.totalBytes = totalBytes;
    }

    /**
     * Where the session stands at {@code now}: {@code done} bytes of all files at the receiver or on their
     * way, {@code resumed} of them there before this session, {@code finishedFiles} files finished, and the
     * file most recently advanced.
     */
    public void update(long now, long done, long resumed, int finishedFiles, String current) {
        this.done = done;
        this.resumed = resumed;
        this.finishedFiles = finishedFiles;
        this.current = current == null ? "" : current;
        long moved = done - resumed;
        samples.add(new long[]{now, moved});
        while (samples.size() > 2 && samples.peekFirst()[0] < now - WINDOW_NANOS) {
            samples.removeFirst();
        }
    }

    /** Bytes per second over the last seconds, or NaN before a second of them. */
    double rate(long now) {
        long[] first = samples.peekFirst();
        long[] last = samples.peekLast();
        if (now - startNanos < FIRST_RATE_NANOS || last[0] - first[0] <= 0) {
            return Double.NaN;
        }
        return (last[1] - first[1]) * 1e9 / (last[0] - first[0]);
    }

    /** The line, at most {@code columns - 1} characters (the last column would wrap on some terminals). */
    public String render(long now, int columns) {
        int width = Math.max(20, columns) - 1;
        double rate = rate(now);
        long percent = totalBytes <= 0 ? 100 : Math.min(100, done * 100 / totalBytes);
        StringBuilder fixed = new StringBuilder();
        if (files > 1) {
            fixed.append(finishedFiles).append('/').append(files).append(" files  ");
        }
        fixed.append(percent).append("%  ").append(Sizes.bytes(done)).append(" of ").append(Sizes.bytes(totalBytes));
        if (!Double.isNaN(rate)) {
            fixed.append("  ").append(Sizes.rate(rate));
            if (rate > 0 && done < totalBytes) {
                fixed.append("  ETA ").append(Sizes.seconds((totalBytes - done) / rate));
            }
        }
        String tail = fixed.toString();
        int room = width - tail.length() - 2;
        if (room < 8) {
            return tail.length() <= width ? tail : tail.substring(0, width);
        }
        return fit(current, room) + "  " + tail;
    }

    /** {@code name} in {@code room} characters: its end kept (the file name), its start elided. */
    static String fit(String name, int room) {
        if (name.length() <= room) {
            return name;
        }
        return "…" + name.substring(name.length() - (room - 1));
    }
}
