package io.ferry.cli.progress;

import io.ferry.cli.transfer.ProgressListener;

import java.io.PrintStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * Progress on an interactive terminal: one {@link StatusLine} on standard error, redrawn in place at most
 * five times a second, counting what the receiver says it has taken, and never wider than the terminal (a bar per file wrapped at 80 columns and, with
 * more files than rows, repeated through the scrollback), cleared when the session ends so that the
 * results print on a clean line.
 */
public final class TerminalProgress implements ProgressListener {

    static final long REDRAW_NANOS = 200_000_000L;
    /** Erase from the cursor to the end of the line (ECMA-48 EL). */
    static final String CLEAR_TO_END = "\u001b[K";

    private final PrintStream out;
    private final IntSupplier columns;
    private final java.util.function.LongSupplier clock;
    private final Map<Integer, ActiveFile> active = new HashMap<>();
    private StatusLine line;
    private long finishedBytes;
    private long finishedResumed;
    private int finishedFiles;
    private String current = "";
    private long lastDraw = Long.MIN_VALUE / 2;
    private boolean drawn;
    /** What the receiver said it took (ALIVE), or -1 before it said. */
    private long receiverTook = -1;

    /**
     * @param out     the terminal's stream (standard error)
     * @param columns the terminal's width now, 0 when unknown (80 is then assumed)
     */
    public TerminalProgress(PrintStream out, IntSupplier columns) {
        this(out, columns, System::nanoTime);
    }

    TerminalProgress(PrintStream out, IntSupplier columns, java.util.function.LongSupplier clock) {
        this.out = out;
        this.columns = columns;
        this.clock = clock;
    }

    @Override
    public synchronized void sessionStarted(int files, long totalBytes) {
        line = new StatusLine(clock.getAsLong());
        line.session(files, totalBytes);
    }

    @Override
    public synchronized void fileStarted(int id, String name, long size, long resumedFrom) {
        // started again after an eager start: from what the receiver holds
        active.put(id, new ActiveFile(name, size, resumedFrom));
        current = name;
        draw(false);
    }

    @Override
    public synchronized void fileAdvanced(int id, long done) {
        ActiveFile file = active.get(id);
        if (file != null) {
            file.done = done;
            current = file.name;
            draw(false);
        }
    }

    @Override
    public synchronized void receiverTook(long bytes) {
        receiverTook = bytes;
        draw(false);
    }

    @Override
    public synchronized void fileFinished(int id, boolean ok) {
        ActiveFile file = active.remove(id);
        if (file != null) {
            finishedBytes += ok ? file.size : file.done;
            finishedResumed += file.resumedFrom;
            finishedFiles++;
        }
        draw(false);
    }

    @Override
    public synchronized void sessionFinished() {
        if (drawn) {
            out.print("\r" + CLEAR_TO_END);
            out.flush();
            drawn = false;
        }
        line = null;
    }

    private void draw(boolean force) {
        if (line == null) {
            return;
        }
        long now = clock.getAsLong();
        long done = finishedBytes;
        long resumed = finishedResumed;
        for (ActiveFile f : active.values()) {
            done += f.done;
            resumed += f.resumedFrom;
        }
        if (receiverTook >= 0) {
            // what is at the receiver, not what left here: the transport's buffers hold megabytes on a long path,
            // and a bar counting them reached 100 % with half the file on its way
            done = Math.min(done, resumed + receiverTook);
        }
        line.update(now, done, resumed, finishedFiles, current);
        if (!force && now - lastDraw < REDRAW_NANOS) {
            return;
        }
        lastDraw = now;
        int width = columns.getAsInt();
        out.print("\r" + line.render(now, width > 0 ? width : 80) + CLEAR_TO_END);
        out.flush();
        drawn = true;
    }

    /** The status line on an interactive terminal, plain lines every second on standard error otherwise. */
    public static ProgressListener forConsole() {
        if (System.console() == null) {
            return new LineProgress(System.err, Duration.ofSeconds(1));
        }
        return new TerminalProgress(System.err, TerminalWidth.system());
    }
}
