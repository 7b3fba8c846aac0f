package io.ferry.cli.progress;

import io.ferry.cli.transfer.ProgressListener;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import java.text.DecimalFormat;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;

/**
 * Redrawn progress bars with rate and ETA for interactive terminals (the progressbar library): one bar
 * per file in flight and, for several files, one for the whole session.
 */
public final class TerminalProgress implements ProgressListener {

    private final Map<Integer, ProgressBar> bars = new HashMap<>();
    private final Map<Integer, Long> done = new HashMap<>();
    private ProgressBar overall;
    private long finished;

    @Override
    public synchronized void sessionStarted(int files, long totalBytes) {
        if (files > 1) {
            overall = bar(files + " files", totalBytes);
        }
    }

    @Override
    public synchronized void fileStarted(int id, String name, long size, long resumedFrom) {
        ProgressBar bar = bars.get(id); // started again after an eager start: the same bar, from where it resumes
        if (bar == null) {
            bar = bar(name, size);
        }
        bar.stepTo(resumedFrom);
        if (resumedFrom > 0) {
            bar.setExtraMessage("resumed");
        }
        bars.put(id, bar);
        done.put(id, resumedFrom);
        advanceOverall();
    }

    @Override
    public synchronized void fileAdvanced(int id, long total) {
        ProgressBar bar = bars.get(id);
        if (bar != null) {
            bar.stepTo(total);
            done.put(id, total);
            advanceOverall();
        }
    }

    @Override
    public synchronized void fileFinished(int id, boolean ok) {
        ProgressBar bar = bars.remove(id);
        Long d = done.remove(id);
        if (bar != null) {
            if (ok) {
                bar.stepTo(bar.getMax());
            } else {
                bar.setExtraMessage("failed");
            }
            finished += ok ? bar.getMax() : (d == null ? 0 : d);
            bar.close();
        }
        advanceOverall();
    }

    @Override
    public synchronized void sessionFinished() {
        bars.values().forEach(ProgressBar::close);
        bars.clear();
        if (overall != null) {
            overall.close();
            overall = null;
        }
    }

    private void advanceOverall() {
        if (overall != null) {
            overall.stepTo(finished + done.values().stream().mapToLong(Long::longValue).sum());
        }
    }

    private static ProgressBar bar(String name, long size) {
        return new ProgressBarBuilder()
                .setTaskName(name.length() > 30 ? "…" + name.substring(name.length() - 29) : name)
                .setInitialMax(size)
                .setUnit(" MiB", 1 << 20)
                .showSpeed(new DecimalFormat("0.0"))
                .setStyle(ProgressBarStyle.COLORFUL_UNICODE_BAR)
                .setUpdateIntervalMillis(200)
                .setMaxRenderedLength(100)
                .setSpeedUnit(ChronoUnit.SECONDS)
                .continuousUpdate()
                .build();
    }

    /** Bars on an interactive terminal, plain lines every second otherwise. */
    public static ProgressListener forConsole() {
        return System.console() != null ? new TerminalProgress() : new LineProgress(System.err, Duration.ofSeconds(1));
    }
}
