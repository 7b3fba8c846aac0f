package io.ferry.transport.ledbat.core;

import java.util.Arrays;

/**
 * A connection's timers, one deadline per kind (the shape of quinn-proto's {@code TimerTable}). Only
 * {@link ConnectionTimers} writes it, once at the end of every call into the connection, from what its
 * phase and its parts ask for; {@link UtpConnection#onTimer} reads which ones expired, and the driver arms
 * its one timer for {@link #next()}.
 */
final class TimerTable {

    static final long NONE = Long.MAX_VALUE;

    /** The kinds, in the order {@link UtpConnection#onTimer} serves them. */
    enum Timer {
        /** The phase's deadline: connect, half-open, close or TIME_WAIT ({@link Phase#deadline()}). */
        PHASE,
        /** Nothing heard from the peer for the idle timeout. */
        IDLE,
        /** The retransmission timeout (RFC 6298). */
        RETRANSMISSION,
        /** The tail-loss probe (RFC 8985 §7). */
        TAIL_LOSS_PROBE,
        /** The zero-window probe (RFC 9293 §3.8.6.1's persist timer). */
        PERSIST,
        /** Nothing sent for the keep-alive interval. */
        KEEP_ALIVE,
        /** The pacer lets the next packet go. */
        PACING,
        /** A delayed acknowledgement is due (RFC 9293 §3.8.6.3). */
        DELAYED_ACK;

        static final Timer[] ALL = values();
    }

    private final long[] deadlines = new long[Timer.ALL.length];

    TimerTable() {
        Arrays.fill(deadlines, NONE);
    }

    void set(Timer timer, long deadlineNanos) {
        deadlines[timer.ordinal()] = deadlineNanos;
    }

    boolean isExpired(Timer timer, long nowNanos) {
        return nowNanos >= deadlines[timer.ordinal()];
    }

    /** The earliest deadline, {@link #NONE} if no timer runs. */
    long next() {
        long next = NONE;
        for (long d : deadlines) {
            next = Math.min(next, d);
        }
        return next;
    }
}
