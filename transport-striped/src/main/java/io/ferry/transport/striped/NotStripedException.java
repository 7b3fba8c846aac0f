package io.ferry.transport.striped;

import java.net.ConnectException;

/**
 * A striped connect reached a listener that does not carry striped sessions: it answered something else
 * than the striping greeting, or closed the connection without one. (A listener that says nothing at all
 * makes the connect fail with {@link io.netty.channel.ConnectTimeoutException} instead.)
 */
public class NotStripedException extends ConnectException {
    private static final long serialVersionUID = 1L;

    private final String answered;

    NotStripedException(String message, String answered) {
        super(message);
        this.answered = answered;
    }

    /** The start of what the listener sent, as printable text; empty when it closed without a word. */
    public String answered() {
        return answered;
    }
}
