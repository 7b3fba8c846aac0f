package io.ferry.transport.ledbat.core;

/**
 * What a driver needs of a sans-I/O connection, whichever wire it speaks (uTP's {@link UtpConnection},
 * UDT4's): its timer, the application's flow calls, the call-then-collect rule ({@link #collect}) and its
 * end. Datagrams go in through each protocol's own method, since routing them is the protocol's. Every
 * call takes the time; no implementation reads a clock.
 *
 * <h2>Driving one</h2>
 * <ul>
 *   <li>Pass every datagram addressed to the connection to its protocol's method; the caller keeps
 *       ownership of the buffer and may release it as soon as the call returns.</li>
 *   <li>After <em>every</em> call into the connection (its factories included; for the datagrams of a read
 *       batch, after {@link #endReadBatch}, where the connection answers them all at once): {@link #collect} what it
 *       produced (datagrams, events, delivered payload), then (re)arm one timer for
 *       {@link #nextDeadlineNanos()} and call {@link #onTimer} when it fires (early is harmless). What
 *       the driver does with the events may call into the connection again; then collect again.</li>
 *   <li>Write application bytes, then {@link #flush}; stop when a write takes less than offered and resume
 *       after the writability event finds the connection writable.</li>
 *   <li>Report bytes the application has processed with {@link #consumed}; until then they count against
 *       the receive window (this is how {@code autoRead = false} applies backpressure).</li>
 *   <li>Forget the connection once {@link #isTerminated()} is true.</li>
 * </ul>
 * All times are the caller's monotonic clock in nanoseconds; one connection must be used from one thread
 * at a time.
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
