package io.ferry.transport.ledbat.core;

/**
 * What a driver needs of a sans-I/O connection, whichever wire it speaks (uTP's {@link UtpConnection},
 * UDT4's): its timer, the application's flow calls, the call-then-collect rule ({@link #collect}) and its
 * end. Datagrams go in through each protocol's own method, since routing them is the protocol's. Every
 * call takes the time; no implementation reads a clock.
 */
public interface EngineConnection {

    /** A timer the driver armed for {@link #nextDeadlineNanos} expired (early or late calls are harmless). */
    void onTimer(long nowNanos);

    /** When the driver should call {@link #onTimer} next; {@link Long#MAX_VALUE} for never. */
    long nextDeadlineNanos();

    /** Sends what the window and the pacer allow now. */
    void flush(long nowNanos);

    /** The application consumed {@code bytes} delivered bytes: they leave the receive window. */
    void consumed(int bytes, long nowNanos);

    /** Resets the connection: what is unsent is dropped and the peer is told. */
    void abort(long nowNanos);

    /**
     * Whether the connection is closed for the application: nothing more is delivered or accepted. A
     * closed connection may still answer a late packet of the peer's until {@link #isTerminated}.
     */
    boolean isClosed();

    /** Whether the connection is over for its driver: nothing more will be sent or received, and it can be forgotten. */
    boolean isTerminated();

    /**
     * Hands what the connection produced to {@code sink} ({@link ConnectionOutput#drainTo}); with
     * {@code transmit} false datagrams stay queued, in order, for a later collect.
     */
    void collect(ConnectionSink sink, boolean transmit);

    /** {@link #collect(ConnectionSink, boolean)} with the datagrams too. */
    default void collect(ConnectionSink sink) {
        collect(sink, true);
    }

    /** Whether datagrams wait to be collected (left by a collect that took none). */
    boolean hasTransmit();

    /** Releases datagrams and payload produced but never collected (the driver gave the connection up). */
    void releaseUncollected();

    /** The driver is about to hand this connection the first datagram of a batch it read. */
    default void beginReadBatch() {
    }

    /** The driver's batch of received datagrams ended: what was deferred to the batch's end happens now. */
    default void endReadBatch(long nowNanos) {
    }
}
