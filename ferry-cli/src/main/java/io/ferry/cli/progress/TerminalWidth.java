package io.ferry.cli.progress;

import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;

import java.io.IOException;
import java.util.function.IntSupplier;

/**
 * The width of the terminal the CLI runs in, as it is now (a resized window included), from jline's
 * system terminal; {@code COLUMNS} where jline finds none, else 0 (unknown).
 */
final class TerminalWidth implements IntSupplier {

    private final Terminal terminal;

    private TerminalWidth(Terminal terminal) {
        this.terminal = terminal;
    }

    static IntSupplier system() {
        try {
            Terminal terminal = TerminalBuilder.builder().system(true).dumb(true).build();
            return new TerminalWidth(terminal);
        } catch (IOException | RuntimeException e) {
            return TerminalWidth::fromEnvironment;
        }
    }

    @Override
    public int getAsInt() {
        int width = terminal.getWidth();
        return width > 0 ? width : fromEnvironment();
    }

    private static int fromEnvironment() {
        try {
            return Integer.parseInt(System.getenv().getOrDefault("COLUMNS", "0").trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
