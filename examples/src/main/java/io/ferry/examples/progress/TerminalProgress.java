package io.ferry.examples.progress;

import io.ferry.examples.transfer.ProgressListener;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import java.text.DecimalFormat;
import java.time.Duration;

/** A redrawn progress bar with rate and ETA for interactive terminals (the progressbar library). */
public final class TerminalProgress implements ProgressListener {
    private ProgressBar bar;

    @Override
    public synchronized void started(String name, long size) {
        finished();
        bar = new ProgressBarBuilder()
                .setTaskName(name)
                .setInitialMax(size)
                .setUnit(" MiB", 1 << 20)
                .showSpeed(new DecimalFormat("0.0"))
                .setStyle(ProgressBarStyle.COLORFUL_UNICODE_BAR)
                .setUpdateIntervalMillis(200)
                .setMaxRenderedLength(100)
                .setSpeedUnit(java.time.temporal.ChronoUnit.SECONDS)
                .build();
    }

    @Override
    public synchronized void advanced(long total) {
        if (bar != null) {
            bar.stepTo(total);
        }
    }

    @Override
    public synchronized void finished() {
        if (bar != null) {
            bar.close();
            bar = null;
        }
    }

    /** A bar on an interactive terminal, plain lines every second otherwise. */
    public static ProgressListener forConsole() {
        return System.console() != null ? new TerminalProgress() : new LineProgress(System.err, Duration.ofSeconds(1));
    }
}
