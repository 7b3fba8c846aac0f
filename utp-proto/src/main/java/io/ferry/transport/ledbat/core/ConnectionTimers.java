package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.core.TimerTable.Timer;

/**
 * What one uTP connection's timers are set to: read from its {@link Phase} and from the deadlines its parts
 * return (none of them writes a timer), at the end of every call into the connection, which is the only
 * caller. The idle timeout and the keep-alive are the connection's own rules (BEP 29 leaves both to the
 * implementation); every other timer is a part's deadline, cleared once the application sees the
 * connection closed.
 */
final class ConnectionTimers {
    private static final long NONE = TimerTable.NONE;

    private final TimerTable table = new TimerTable();
    private final UtpConfig config;
    private final Handshake handshake;
    private final LossRecovery recovery;
    private final SendPath send;
    private final AckScheduler acks;

    ConnectionTimers(UtpConfig config, Handshake handshake, LossRecovery recovery, SendPath send, AckScheduler acks) {
        this.config = config;
        this.handshake = handshake;
        this.recovery = recovery;
        this.send = send;
        this.acks = acks;
    }

    /**
     * Sets every timer from the phase ({@code state}, {@code phaseDeadline}) and the parts; the idle timeout
     * runs from {@code lastReceiveNanos}.
     */
    void arm(ConnectionState state, long phaseDeadline, long lastReceiveNanos) {
        table.set(Timer.PHASE, phaseDeadline);
        boolean established = state.isEstablished();
        boolean closed = state.isClosed();
        table.set(Timer.IDLE, established && config.idleTimeoutNanos() > 0
                ? lastReceiveNanos + config.idleTimeoutNanos() : NONE);
        table.set(Timer.RETRANSMISSION, closed ? NONE : recovery.retransmissionDeadline());
        table.set(Timer.TAIL_LOSS_PROBE, closed ? NONE : recovery.tailLossProbeDeadline());
        table.set(Timer.PERSIST, closed ? NONE : send.persistDeadline());
        table.set(Timer.KEEP_ALIVE, established && config.keepAliveIntervalNanos() > 0 && handshake.peerConfirmed()
                ? send.lastSendNanos() + config.keepAliveIntervalNanos() : NONE);
        table.set(Timer.PACING, closed ? NONE : send.pacingDeadline());
        table.set(Timer.DELAYED_ACK, closed ? NONE : acks.deadlineNanos());
    }

    /** Whether {@code timer}'s deadline, as last armed, has passed. */
    boolean isExpired(Timer timer, long nowNanos) {
        return table.isExpired(timer, nowNanos);
    }

    /**
     * Whether nothing was sent for the keep-alive interval, read from the last send now rather than from
     * the armed deadline: what another timer just sent also keeps the connection alive.
     */
    boolean keepAliveDue(long nowNanos) {
        return config.keepAliveIntervalNanos() > 0 && nowNanos - send.lastSendNanos() >= config.keepAliveIntervalNanos();
    }

    /** The earliest deadline, for the driver's one timer; {@link TimerTable#NONE} if none runs. */
    long next() {
        return table.next();
    }
}
