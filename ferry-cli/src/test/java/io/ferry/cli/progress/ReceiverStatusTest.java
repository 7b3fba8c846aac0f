package io.ferry.cli.progress;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The receiver's progress line, from captured output. */
class ReceiverStatusTest {

    private static final long S = 1_000_000_000L;

    @Test
    void oneLineForAllSessionsWithTheRateOfTheirBytes() {
        long[] now = {0};
        ReceiverStatus status = new ReceiverStatus(new PrintStream(new ByteArrayOutputStream()), () -> 80, () -> now[0]);
        status.took("a", 0);
        now[0] = 2 * S;
        status.took("a", 10L << 20);
        status.stored();
        status.took("b", 0);
        assertEquals("receiving from 2 senders: 1 files stored, 10.0 MiB at 5.0 MiB/s", status.render(2 * S, 80));
        assertTrue(status.render(2 * S, 30).length() <= 29);
    }

    @Test
    void theLineIsClearedBeforeAResultLineAndWhenTheLastSessionEnds() {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        ReceiverStatus status = new ReceiverStatus(new PrintStream(captured, true, StandardCharsets.UTF_8), () -> 80);
        status.took("a", 1 << 20);
        String drawn = captured.toString(StandardCharsets.UTF_8);
        assertTrue(drawn.startsWith("\rreceiving from 1 sender"), drawn);
        status.clear();
        assertTrue(captured.toString(StandardCharsets.UTF_8).endsWith("\r" + TerminalProgress.CLEAR_TO_END));
        status.ended("a");
        assertFalse(captured.toString(StandardCharsets.UTF_8).contains("\n"), "redrawn in place, never a new line");
    }
}
