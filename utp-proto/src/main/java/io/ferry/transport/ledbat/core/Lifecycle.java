package io.ferry.transport.ledbat.core;

/**
 * Where one uTP connection is in its life, and the deadlines that belong to each phase: the one owner of
 * both ({@link UtpConnection} asks it and acts on what it says; nothing else moves the phase).
 *
 * <ul>
 *   <li>{@link ConnectionState#SYN_SENT}: the initiator waits for the answer to its SYN, until the connect
 *       deadline.</li>
 *   <li>{@link ConnectionState#CONNECTED}: data may flow. An acceptor is half-open until the initiator
 *       proves its address, under the same connect deadline; once the application closed and the peer
 *       acknowledged our FIN, the peer's FIN is due by the close deadline.</li>
 *   <li>{@link ConnectionState#TIME_WAIT}: closed gracefully; the peer's retransmitted FIN is still
 *       acknowledged until twice the longest retransmission timeout passed without one (TCP's TIME_WAIT,
 *       RFC 9293 section 3.6.1).</li>
 *   <li>{@link ConnectionState#TERMINATED}: nothing left; the driver forgets the connection.</li>
 * </ul>
 */
final class Lifecycle {

    private static final long NONE = Long.MAX_VALUE;

    /** What fell due at a timer. */
    enum Due {
        /** Nothing of the life cycle's. */
        NOTHING,
        /** The handshake did not complete (or the acceptor's initiator never proved its address) in time. */
        CONNECT_TIMEOUT,
        /** After our FIN was acknowledged, the peer's did not come in time. */
        CLOSE_TIMEOUT,
        /** The quiet period after a graceful close passed: the connection is over. */
        TIME_WAIT_OVER
    }

    private final long timeWaitNanos;
    private ConnectionState state;
    private long connectDeadline;
    private long closeDeadline = NONE;
    private long timeWaitUntil = NONE;
    private boolean closeRequested;

    private Lifecycle(ConnectionState state, long connectDeadline, long timeWaitNanos) {
        this.state = state;
        this.connectDeadline = connectDeadline;
        this.timeWaitNanos = timeWaitNanos;
    }

    /** An initiator that sent its SYN; the handshake must complete by {@code connectDeadline}. */
    static Lifecycle initiator(long connectDeadline, long timeWaitNanos) {
        return new Lifecycle(ConnectionState.SYN_SENT, connectDeadline, timeWaitNanos);
    }

    /** An acceptor, half-open until the initiator proves its address by {@code halfOpenDeadline}. */
    static Lifecycle acceptor(long halfOpenDeadline, long timeWaitNanos) {
        return new Lifecycle(ConnectionState.CONNECTED, halfOpenDeadline, timeWaitNanos);
    }

    ConnectionState state() {
        return state;
    }

    /** Closed for the application: in {@link ConnectionState#TIME_WAIT} or {@link ConnectionState#TERMINATED}. */
    boolean isClosed() {
        return state == ConnectionState.TIME_WAIT || state == ConnectionState.TERMINATED;
    }

    boolean isTerminated() {
        return state == ConnectionState.TERMINATED;
    }

    boolean isSynSent() {
        return state == ConnectionState.SYN_SENT;
    }

    boolean isConnected() {
        return state == ConnectionState.CONNECTED;
    }

    boolean isTimeWait() {
        return state == ConnectionState.TIME_WAIT;
    }

    /** The initiator's handshake completed. */
    void established() {
        state = ConnectionState.CONNECTED;
        connectDeadline = NONE;
    }

    /** The acceptor's initiator proved its address: no more connect deadline. */
    void peerConfirmed() {
        connectDeadline = NONE;
    }

    /** The application closed; true the first time. */
    boolean requestClose() {
        if (closeRequested) {
            return false;
        }
        closeRequested = true;
        return true;
    }

    /** Our FIN is acknowledged and the peer's has not come: after a close, it is due by the close timeout. */
    void awaitPeerFin(long nowNanos, long closeTimeoutNanos) {
        if (closeRequested && closeDeadline == NONE) {
            closeDeadline = nowNanos + closeTimeoutNanos;
        }
    }

    /** Both FINs are acknowledged: the quiet period begins. */
    void enterTimeWait(long nowNanos) {
        state = ConnectionState.TIME_WAIT;
        connectDeadline = NONE;
        closeDeadline = NONE;
        timeWaitUntil = nowNanos + timeWaitNanos;
    }

    /** The peer retransmitted in TIME_WAIT (our acknowledgement was lost): the quiet period starts again. */
    void restartTimeWait(long nowNanos) {
        timeWaitUntil = nowNanos + timeWaitNanos;
    }

    /** Ends the connection; true if it was still open (its close is then to be reported). */
    boolean terminate() {
        boolean wasOpen = !isClosed();
        state = ConnectionState.TERMINATED;
        connectDeadline = NONE;
        closeDeadline = NONE;
        timeWaitUntil = NONE;
        return wasOpen;
    }

    /** What of the life cycle's is due at {@code nowNanos}; TIME_WAIT's end terminates. */
    Due due(long nowNanos) {
        if (state == ConnectionState.TIME_WAIT) {
            if (nowNanos >= timeWaitUntil) {
                terminate();
                return Due.TIME_WAIT_OVER;
            }
            return Due.NOTHING;
        }
        if (nowNanos >= connectDeadline) {
            return Due.CONNECT_TIMEOUT;
        }
        return nowNanos >= closeDeadline ? Due.CLOSE_TIMEOUT : Due.NOTHING;
    }

    /** The earliest of the phase's deadlines. */
    long nextDeadlineNanos() {
        return switch (state) {
            case TERMINATED -> NONE;
            case TIME_WAIT -> timeWaitUntil;
            default -> Math.min(connectDeadline, closeDeadline);
        };
    }
}
