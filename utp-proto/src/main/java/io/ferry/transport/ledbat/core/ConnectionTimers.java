package io.ferry.transport.ledbat.core;

/**
 * The timer table of one connection: the deadline of each of its timers, in the caller's nanoseconds,
 * {@link #NONE} when a timer is not armed. A connection has a single wake-up, at the earliest of them
 * (with the delayed ACK, keep-alive and idle deadlines that derive from other state); what is due is
 * found by comparing each deadline with the time when it fires.
 */
final class ConnectionTimers {
    /** The deadline of a timer that is not armed. */
    static final long NONE = Long.MAX_VALUE;

    /** Retransmission timeout (RFC 6298), armed while data is unacknowledged. */
    long retransmission = NONE;
    /** Tail-loss probe, armed when the last packets of a flight may have been lost. */
    long tailLossProbe = NONE;
    /** When the pacer lets the next packet go. */
    long pacing = NONE;
    /** Zero-window probe, armed while the peer's window is closed. */
    long persist = NONE;
    /** The handshake's deadline. */
    long connect = NONE;
    /** The peer's FIN is due by this time once ours is acknowledged after {@code close()}. */
    long close = NONE;
    /** The end of the quiet period of a gracefully closed connection (like TCP's TIME_WAIT). */
    long linger = NONE;

    /** The earliest deadline of an open connection (linger excluded: it runs alone, after the close). */
    long earliest() {
        long d = Math.min(retransmission, tailLossProbe);
        d = Math.min(d, pacing);
        d = Math.min(d, persist);
        d = Math.min(d, connect);
        return Math.min(d, close);
    }

    /** Disarms every timer. */
    void clear() {
        retransmission = NONE;
        tailLossProbe = NONE;
        pacing = NONE;
        persist = NONE;
        connect = NONE;
        close = NONE;
        linger = NONE;
    }
}
