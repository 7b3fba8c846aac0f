package io.ferry.transport.ledbat.core;

/** Life-cycle states of a {@link UtpConnection}. */
public enum ConnectionState {
    /** The initiator sent its SYN and waits for the answer. */
    SYN_SENT,
    /** Data may flow; either direction may already be half-closed. */
    CONNECTED,
    /**
     * Closed gracefully, still acknowledging a retransmitted FIN of the peer for a quiet period (TCP's
     * TIME_WAIT). Not to be confused with a channel's LINGER, which is the wait before the close completes.
     */
    TIME_WAIT,
    /** Nothing left to do: the driver may forget the connection. */
    TERMINATED;

    /** Whether the application sees the connection closed (the {@code CLOSED} event was raised). */
    boolean isClosed() {
        return this == TIME_WAIT || this == TERMINATED;
    }

    /** Whether the handshake completed (for an acceptor, perhaps not yet confirmed) and the connection is not closed. */
    boolean isEstablished() {
        return this == CONNECTED;
    }
}
