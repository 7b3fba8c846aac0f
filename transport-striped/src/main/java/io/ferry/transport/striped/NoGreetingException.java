package io.ferry.transport.striped;

import io.netty.channel.ConnectTimeoutException;

import java.time.Duration;

/**
 * A striped connect reached a listener that accepted the connection and then said nothing for the whole
 * handshake timeout: a listener that does not carry striped sessions, or no Ferry listener at all (a
 * Ferry listener that carries them greets at once). {@link NotStripedException} is the case of a
 * listener that answered something else or closed.
 */
public class NoGreetingException extends ConnectTimeoutException {
    private static final long serialVersionUID = 1L;

    private final Duration waited;

    NoGreetingException(String message, Duration waited) {
        super(message);
        this.waited = waited;
    }

    /** How long the connect waited for the greeting. */
    public Duration waited() {
        return waited;
    }
}
