package io.ferry.cli.progress;

import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * A receiver's progress on an interactive terminal: one line on standard error, redrawn in place, for all
 * its sessions together ({@code receiving from 2 senders: 3 files stored, 340.5 MiB at 85.2 MiB/s}),
 * cleared before each result line so that the two never share a line. The counts come from the sessions'
 * own ALIVE beats (twice a second each), not from every chunk.
 */
public final class ReceiverStatus {

    private final PrintStream out;
    private final IntSupplier columns;
    private final java.util.function.LongSupplier clock;
    private final Map<String, Long> takenBySender = new HashMap<>();
    private final ArrayDeque<long[]> samples = new ArrayDeque<>();
    private long takenByEnded;
    private int stored;
    private boolean drawn;
    private long lastDraw = Long.MIN_VALUE / 2;

    public ReceiverStatus(PrintStream out, IntSupplier columns) {
        this(out, columns, System::nanoTime);
    }

    ReceiverStatus(PrintStream out, IntSupplier columns, java.util.function.LongSupplier clock) {
        this.out = out;
        this.columns = columns;
        this.clock = clock;
    }

    /** The status line on this terminal's standard error, or null where standard error is no terminal. */
    public static ReceiverStatus forConsole() {
        return System.console() == null ? null : new ReceiverStatus(System.err, TerminalWidth.system());
    }

    /** Sender {@code peer}'s session has taken {@code bytes} in all. */
    public synchronized void took(String peer, long bytes) {
        takenBySender.put(peer, bytes);
        draw(clock.getAsLong());
    }

    public synchronized void stored() {
        stored++;
    }

    /** A session ended: its bytes stay in the totals, it no longer counts as a sender. */
    public synchronized void ended(String peer) {
        Long taken = takenBySender.remove(peer);
        takenByEnded += taken == null ? 0 : taken;
        if (takenBySender.isEmpty()) {
            clear();
        }
    }

    /** Clears the line before a result line; the next beat draws it again. */
    public synchronized void clear() {
        if (drawn) {
            out.print("\r" + TerminalProgress.CLEAR_TO_END);
            out.flush();
            drawn = false;
        }
    }

    String render(long now, int width) {
        long total = takenByEnded + takenBySender.values().stream().mapToLong(Long::longValue).sum();
        samples.add(new long[]{now, total});
        while (samples.size() > 2 && samples.peekFirst()[0] < now - StatusLine.WINDOW_NANOS) {
            samples.removeFirst();
        }
        long[] first = samples.peekFirst();
        double rate = now - first[0] >= StatusLine.FIRST_RATE_NANOS ? (total - first[1]) * 1e9 / (now - first[0]) : Double.NaN;
        int senders = takenBySender.size();
        String line = "receiving from " + senders + (senders == 1 ? " sender: " : " senders: ") + stored + " files stored, "
                + Sizes.bytes(total) + (Double.isNaN(rate) ? "" : " at " + Sizes.rate(rate));
        int room = Math.max(20, width) - 1;
        return line.length() <= room ? line : line.substring(0, room);
    }

    private void draw(long now) {
        String line = render(now, columns.getAsInt() > 0 ? columns.getAsInt() : 80);
        if (now - lastDraw < TerminalProgress.REDRAW_NANOS || takenBySender.isEmpty()) {
            return;
        }
        lastDraw = now;
        out.print("\r" + line + TerminalProgress.CLEAR_TO_END);
        out.flush();
        drawn = true;
    }
}
