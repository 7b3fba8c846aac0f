package io.ferry.cli.progress;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The terminal's progress line, from captured output at 80 and 120 columns. */
class StatusLineTest {

    private static final long S = 1_000_000_000L;

    @ParameterizedTest
    @ValueSource(ints = {80, 120, 40})
    void theLineNeverReachesTheLastColumnWhateverTheNames(int columns) {
        StatusLine line = new StatusLine(0);
        line.session(60, 60L << 30);
        String deep = "photos/2026/holidays/a-very-long-directory-name-indeed/and-a-file-name-longer-still-than-that.raw";
        for (long t = 0; t <= 10 * S; t += S / 5) {
            line.update(t, t / S * (1L << 30), 0, (int) (t / S), deep);
            String text = line.render(t, columns);
            assertTrue(text.length() <= columns - 1, text.length() + " characters at " + columns + " columns: " + text);
        }
        String last = line.render(10 * S, columns);
        assertTrue(last.contains("10/60 files"), last);
        if (columns >= 80) {
            assertTrue(last.contains("ETA"), last);
            assertTrue(last.startsWith("…") && last.contains("than-that.raw"), "the file's name is kept, its path elided: " + last);
        }
    }

    @Test
    void wordsAndUnitsAreSeparatedByTwoSpaces() {
        StatusLine line = new StatusLine(0);
        line.session(1, 100L << 20);
        line.update(2 * S, 50L << 20, 0, 0, "big.iso");
        String text = line.render(2 * S, 120);
        assertEquals("big.iso  50%  50.0 MiB of 100.0 MiB  25.0 MiB/s  ETA 2.0s", text);
    }

    @Test
    void theRateCountsNeitherWhatWasResumedNorTheFirstSecond() {
        StatusLine line = new StatusLine(0);
        line.session(1, 1000L << 20);
        line.update(S / 2, 600L << 20, 600L << 20, 0, "resumed.bin"); // 600 MiB were at the receiver already
        assertFalse(line.render(S / 2, 120).contains("/s"), "no rate before a second: " + line.render(S / 2, 120));
        line.update(3 * S, 630L << 20, 600L << 20, 0, "resumed.bin");
        String text = line.render(3 * S, 120);
        assertTrue(text.contains("  10.0 MiB/s  "), "30 MiB moved in 3 s, not 630: " + text);
    }

    @Test
    void theBarCountsWhatTheReceiverTookNotWhatLeftTheSender() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        long[] now = {0};
        TerminalProgress progress = new TerminalProgress(new PrintStream(captured, true, StandardCharsets.UTF_8), () -> 120, () -> now[0]);
        progress.sessionStarted(1, 100 << 20);
        progress.fileStarted(0, "far.bin", 100 << 20, 0);
        progress.receiverTook(50 << 20);
        now[0] += TerminalProgress.REDRAW_NANOS;
        progress.fileAdvanced(0, 100 << 20); // all of it handed to the transport, half of it on its way
        String out = captured.toString(StandardCharsets.UTF_8);
        String last = out.substring(out.lastIndexOf('\r') + 1);
        assertTrue(last.contains("50%  50.0 MiB of 100.0 MiB"), last);
    }

    @Test
    void theTerminalProgressRedrawsOneLineInPlaceAndClearsItAtTheEnd() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(captured, true, StandardCharsets.UTF_8);
        long[] now = {0};
        TerminalProgress progress = new TerminalProgress(err, () -> 80, () -> now[0]);
        progress.sessionStarted(3, 3 << 20);
        for (int id = 0; id < 3; id++) {
            progress.fileStarted(id, "file-" + id + ".bin", 1 << 20, 0);
            for (int k = 1; k <= 4; k++) {
                progress.fileAdvanced(id, k << 18);
                now[0] += TerminalProgress.REDRAW_NANOS / 3;
            }
            progress.fileFinished(id, true);
        }
        progress.sessionFinished();
        String out = captured.toString(StandardCharsets.UTF_8);
        assertFalse(out.contains("\n"), "redrawn in place, never a new line: " + out.replace("\u001b", "ESC"));
        for (String frame : out.split("\r")) {
            String visible = frame.replace(TerminalProgress.CLEAR_TO_END, "");
            assertTrue(visible.length() <= 79, visible);
        }
        assertTrue(out.endsWith("\r" + TerminalProgress.CLEAR_TO_END), "the line is cleared for the results");
    }
}
