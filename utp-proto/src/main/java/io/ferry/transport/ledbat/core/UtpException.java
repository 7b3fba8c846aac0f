package io.ferry.transport.ledbat.core;

import java.io.IOException;
import java.time.Duration;

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

    static UtpException connectTimeout(long timeoutNanos) {
        return new UtpException(Reason.CONNECT_TIMEOUT, "connect timed out after " + millis(timeoutNanos));
    }

    /** An acceptor's half-open connection whose initiator never acknowledged the answer to its SYN. */
    static UtpException unconfirmed() {
        return new UtpException(Reason.CONNECT_TIMEOUT, "the initiator did not confirm the handshake in time");
    }

    static UtpException refused() {
        return new UtpException(Reason.CONNECTION_REFUSED, "connection refused by peer");
    }

    static UtpException resetByPeer() {
        return new UtpException(Reason.RESET_BY_PEER, "connection reset by peer");
    }

    /** {@code what} (the SYN, the handshake answer or a packet) went unacknowledged through every retransmission. */
    static UtpException retransmitLimit(String what, int retransmissions) {
        return new UtpException(Reason.RETRANSMIT_LIMIT, "peer stopped responding: " + what + " unacknowledged after "
                + retransmissions + " retransmissions");
    }

    static UtpException idleTimeout(long timeoutNanos) {
        return new UtpException(Reason.IDLE_TIMEOUT, "idle timeout: nothing received from the peer for " + millis(timeoutNanos));
    }

    static UtpException closeTimeout(long timeoutNanos) {
        return new UtpException(Reason.CLOSE_TIMEOUT, "graceful close did not complete within " + millis(timeoutNanos));
    }

    private static String millis(long nanos) {
        return Duration.ofNanos(nanos).toMillis() + " ms";
    }

    /** Returns the kind of failure. */
    public Reason reason() {
        return reason;
    }
}
