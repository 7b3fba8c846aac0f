package io.ferry.cli.perf;

import java.io.IOException;

/** A test that cannot go on, with a message for the person who ran it (one line, no stack trace). */
public final class PerfException extends IOException {
    private static final long serialVersionUID = 1L;

    public PerfException(String message) {
        super(message);
    }
}
