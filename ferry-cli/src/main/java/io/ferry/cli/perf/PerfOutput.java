package io.ferry.cli.perf;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** Where a {@code ferry perf} run's progress and report go: stderr while it runs, then stdout (and the chart file). */
public final class PerfOutput {

    private PerfOutput() {
    }

    /**
     * Progress on standard error: one line redrawn in place on an interactive terminal (the test and its
     * seconds), a line per finished test otherwise, nothing with {@code --json} off a terminal.
     */
    public static PerfClient.Progress progress(PrintWriter err, boolean json) {
        boolean terminal = System.console() != null;
        if (!terminal && json) {
            return PerfClient.Progress.NONE;
        }
        return terminal ? new TerminalLine(err) : new PerfClient.Progress() {
            @Override
            public void started(String what, double seconds) {
            }

            @Override
            public void finished(BulkResult r) {
                err.println("ferry perf: " + line(r));
                err.flush();
            }
        };
    }

    static String line(BulkResult r) {
        return r.ok() ? String.format(Locale.ROOT, "%s %s: %.1f Mbit/s", r.transport(), PerfReport.words(r.direction()), r.goodputMbps())
                : r.transport() + " " + PerfReport.words(r.direction()) + " failed: " + r.error();
    }

    /** The report: the table (or JSON) on {@code out}, and the chart where asked. */
    public static void write(PerfReport report, PrintWriter out, boolean json, Path chart, PrintWriter err) throws IOException {
        if (json) {
            out.println(PerfJson.of(report));
            out.flush();
        } else {
            PerfTable.print(report, out);
        }
        if (chart != null) {
            Files.writeString(chart, PerfChart.of(report), StandardCharsets.UTF_8);
            if (!json) {
                out.println("chart: " + chart);
                out.flush();
            }
        }
    }

    /** The terminal's status line: what runs and for how long yet, redrawn twice a second. */
    private static final class TerminalLine implements PerfClient.Progress {
        private final PrintWriter err;
        private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "ferry-perf-progress");
            t.setDaemon(true);
            return t;
        });
        private volatile String what = "";
        private volatile long startNanos;
        private volatile double seconds;

        TerminalLine(PrintWriter err) {
            this.err = err;
            ticker.scheduleAtFixedRate(this::draw, 500, 500, TimeUnit.MILLISECONDS);
        }

        @Override
        public synchronized void started(String what, double seconds) {
            this.what = what;
            this.seconds = seconds;
            this.startNanos = System.nanoTime();
            draw();
        }

        @Override
        public synchronized void finished(BulkResult r) {
            err.print("\r\033[K" + line(r) + "\n");
            err.flush();
            what = "";
        }

        @Override
        public synchronized void done() {
            what = "";
            ticker.shutdown();
            err.print("\r\033[K");
            err.flush();
        }

        private synchronized void draw() {
            if (what.isEmpty()) {
                return;
            }
            double elapsed = Math.min(seconds, (System.nanoTime() - startNanos) / 1e9);
            String s = String.format(Locale.ROOT, "testing %s: %.0f of %.0f s", what, elapsed, seconds);
            err.print("\r\033[K" + (s.length() > 79 ? s.substring(0, 79) : s));
            err.flush();
        }
    }
}
