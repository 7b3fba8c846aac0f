package io.ferry.transport.ledbat.core;

/**
 * Where one uTP connection is in its life, each phase carrying the data that belongs to it (the shape of
 * quinn-proto's {@code State}): its deadline and, once over, its cause. Only {@link UtpConnection} moves
 * from one phase to the next, in one place ({@code enter}, which keeps the phase's state and deadline beside it
 * for the per-packet checks); a phase is immutable, so a transition is one call.
 *
 * <p>The public view is {@link ConnectionState}: {@link Established} and {@link Closing} are both
 * {@link ConnectionState#CONNECTED}, {@link TimeWait} is {@link ConnectionState#TIME_WAIT} and
 * {@link Closed} {@link ConnectionState#TERMINATED}.
 */
sealed interface Phase {
    long NONE = Long.MAX_VALUE;

    /** The public state this phase shows. */
    default ConnectionState state() {
        if (this instanceof SynSent) {
            return ConnectionState.SYN_SENT;
        }
        if (this instanceof TimeWait) {
            return ConnectionState.TIME_WAIT;
        }
        return this instanceof Closed ? ConnectionState.TERMINATED : ConnectionState.CONNECTED;
    }

    /** When this phase's own deadline falls due ({@link #NONE} if it has none). */
    long deadline();

    /** Whether the application sees the connection closed (the {@code CLOSED} event was raised). */
    default boolean isClosed() {
        return state().isClosed();
    }

    /** Whether the handshake completed (for an acceptor, perhaps not yet confirmed) and the connection is not closed. */
    default boolean isEstablished() {
        return state().isEstablished();
    }

    /** The acceptor's initiator proved its address: the half-open deadline is gone. */
    default Phase peerConfirmed() {
        return this;
    }

    /** The application closed an established connection: {@link Closing}, the first time only. */
    default Phase closeRequested() {
        return this;
    }

    /**
     * Our FIN was acknowledged and the peer's has not come: after a close, it is due by
     * {@code closeTimeoutNanos} from now, armed once (a half-close waits as long as the peer likes).
     */
    default Phase awaitPeerFin(long nowNanos, long closeTimeoutNanos) {
        return this;
    }

    /**
     * What this phase's {@link #deadline()} passing means: how the connection ends, and whether a RESET tells
     * the peer. Only a phase with a deadline is asked.
     */
    Expiry expire(long nowNanos, UtpConfig config);

    /**
     * Why a RESET from the peer ends the connection in this phase (BEP 29): a refusal of our SYN, or a reset of
     * an open connection; {@code null} (a graceful end) if {@code finsExchanged}, the peer having seen our FIN
     * and we its: only a last acknowledgement was lost.
     */
    default UtpException resetCause(boolean finsExchanged) {
        return finsExchanged ? null : UtpException.resetByPeer();
    }

    /** How a phase's deadline ends the connection: its {@code cause} ({@code null}: graceful) and whether to send a RESET. */
    record Expiry(UtpException cause, boolean reset) {
        /** A quiet end: nothing is sent, and an unproven address gets no RESET. */
        static Expiry quiet(UtpException cause) {
            return new Expiry(cause, false);
        }

        static Expiry withReset(UtpException cause) {
            return new Expiry(cause, true);
        }
    }

    /**
     * The initiator sent its SYN and waits for the acceptor's answer until {@code deadline} (the connect
     * timeout, BEP 29).
     */
    record SynSent(long deadline) implements Phase {
        @Override
        public Expiry expire(long nowNanos, UtpConfig config) {
            return Expiry.withReset(UtpException.connectTimeout(config.connectTimeoutNanos()));
        }

        @Override
        public UtpException resetCause(boolean finsExchanged) {
            return UtpException.refused();
        }
    }

    /**
     * Data may flow. An acceptor is half-open until its initiator proves its address by acknowledging the
     * answer (RFC 9000 §8.1's address validation); until then {@code halfOpenDeadline} ends it quietly,
     * afterwards it is {@link #NONE}.
     */
    record Established(long halfOpenDeadline) implements Phase {
        static final Established CONFIRMED = new Established(NONE);

        @Override
        public Phase peerConfirmed() {
            return CONFIRMED;
        }

        @Override
        public Phase closeRequested() {
            return new Closing(halfOpenDeadline, NONE);
        }

        @Override
        public long deadline() {
            return halfOpenDeadline;
        }

        /** The half-open acceptor's initiator never proved its address: no RESET to it. */
        @Override
        public Expiry expire(long nowNanos, UtpConfig config) {
            return Expiry.quiet(UtpException.unconfirmed());
        }
    }

    /**
     * The application closed: our FIN follows the queued bytes and further data is discarded. Once the
     * peer acknowledged our FIN, its own FIN is due by {@code peerFinDeadline} (the close timeout;
     * {@link #NONE} before). A half-open acceptor keeps its {@code halfOpenDeadline}.
     */
    record Closing(long halfOpenDeadline, long peerFinDeadline) implements Phase {
        @Override
        public Phase peerConfirmed() {
            return new Closing(NONE, peerFinDeadline);
        }

        @Override
        public Phase awaitPeerFin(long nowNanos, long closeTimeoutNanos) {
            return peerFinDeadline == NONE ? new Closing(halfOpenDeadline, nowNanos + closeTimeoutNanos) : this;
        }

        @Override
        public long deadline() {
            return Math.min(halfOpenDeadline, peerFinDeadline);
        }

        /** The peer's FIN did not come in time, or (still half-open) the initiator never proved its address. */
        @Override
        public Expiry expire(long nowNanos, UtpConfig config) {
            return halfOpenDeadline > nowNanos
                    ? Expiry.withReset(UtpException.closeTimeout(config.closeTimeoutNanos()))
                    : Expiry.quiet(UtpException.unconfirmed());
        }
    }

    /**
     * Closed gracefully: the peer's retransmitted FIN is still acknowledged until {@code until}, twice the
     * longest retransmission timeout after the last one (TCP's TIME_WAIT, RFC 9293 §3.6.1).
     */
    record TimeWait(long until) implements Phase {
        /**
         * TIME_WAIT from {@code nowNanos} (the last packet of the peer's). The peer's only way to learn that
         * its last packets arrived is our acknowledgement, and its retransmissions are at most one maximum
         * RTO apart, so twice that (like TCP's two segment lifetimes) outlasts every one it will make.
         */
        static TimeWait from(long nowNanos, long maxRtoNanos) {
            return new TimeWait(nowNanos + 2 * maxRtoNanos);
        }

        @Override
        public long deadline() {
            return until;
        }

        /** TIME_WAIT is over: the graceful close ends. */
        @Override
        public Expiry expire(long nowNanos, UtpConfig config) {
            return Expiry.quiet(null);
        }
    }

    /**
     * Nothing left: the driver forgets the connection. {@code cause} is why it ended: {@code null} after a
     * graceful close or a local abort, a {@link UtpException} otherwise.
     */
    record Closed(Throwable cause) implements Phase {
        @Override
        public long deadline() {
            return NONE;
        }

        @Override
        public Expiry expire(long nowNanos, UtpConfig config) {
            throw new IllegalStateException("a closed connection has no deadline");
        }
    }
}
