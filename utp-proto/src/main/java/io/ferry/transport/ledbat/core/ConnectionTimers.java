package io.ferry.transport.ledbat.core;

/**
 * The data path's timer table of one connection: the deadline of each of its timers, in the caller's
 * nanoseconds, {@link #NONE} when a timer is not armed. A connection has a single wake-up, at the earliest
 * of them, of its {@link Lifecycle}'s deadlines and of the delayed ACK, keep-alive and idle deadlines that
 * derive from other state; what is due is found by comparing each deadline with the time when it fires.
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
    /** The earliest deadline. */
    long earliest() {
        return Math.min(Math.min(retransmission, tailLossProbe), Math.min(pacing, persist));
    }

    /** Disarms every timer. */
    void clear() {
        retransmission = NONE;
        tailLossProbe = NONE;
        pacing = NONE;
        persist = NONE;
    }
}
