package io.ferry.bench.netns;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs system commands such as {@code ip} and fails with their output when they fail. */
public final class Commands {

    private Commands() {
    }

    /**
     * Runs a command and returns its standard output.
     *
     * @throws IOException if it cannot start, takes longer than 30 s, or exits non-zero (the message has its stderr)
     */
    public static String run(String... command) throws IOException {
        return run(List.of(command));
    }

    /** Runs a command and returns its standard output; see {@link #run(String...)}. */
    public static String run(List<String> command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(false).start();
        try {
            process.getOutputStream().close();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException("'" + String.join(" ", command) + "' did not finish within 30 s");
            }
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (process.exitValue() != 0) {
                throw new IOException("'" + String.join(" ", command) + "' failed (exit " + process.exitValue() + "): " + err);
            }
            return out;
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + Arrays.toString(command.toArray()), e);
        }
    }
}
