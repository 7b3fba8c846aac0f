package io.ferry.transport.ledbat.core;

import java.io.IOException;

/** Why a uTP connection failed. */
public final class UtpException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The kinds of failure. */
    public enum Reason {
        /** The handshake did not complete within the connect timeout. */
        CONNECT_TIMEOUT,
        /** The peer answered the SYN with a RESET. */
        CONNECTION_REFUSED,
        /** The peer reset an established connection. */
        RESET_BY_PEER,
        /** Consecutive retransmission timeouts without progress exceeded the configured limit. */
        RETRANSMIT_LIMIT,
        /** Nothing was received from the peer for the idle timeout. */
        IDLE_TIMEOUT,
        /** A graceful close did not complete within the close timeout. */
        CLOSE_TIMEOUT
    }

    private final Reason reason;

    /**
     * Creates an exception.
     *
     * @param reason  the kind of failure
     * @param message a human-readable description
     */
    public UtpException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    /** Returns the kind of failure. */
    public Reason reason() {
        return reason;
    }
}
