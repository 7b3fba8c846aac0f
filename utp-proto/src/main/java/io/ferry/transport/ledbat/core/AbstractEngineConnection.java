package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;

import java.util.function.BooleanSupplier;

/**
 * What every protocol core on the engine shares, uTP's {@link UtpConnection} and UDT's alike: the queue of
 * what it produced ({@link ConnectionOutput}) and the two ways its driver takes it, {@link #collect} into a
 * sink or the {@code poll} methods one item at a time. A connection is a leaf over this base, as Netty's
 * channels are over theirs; it only adds to {@link #out}.
 */
public abstract class AbstractEngineConnection implements EngineConnection {
    /** Event: the handshake completed (reported once). */
    public static final int CONNECTED = ConnectionOutput.CONNECTED;
    /** Event: the peer's end of the stream was reached, after its last payload (reported at most once). */
    public static final int END_OF_STREAM = ConnectionOutput.END_OF_STREAM;
    /** Event: the connection's writability changed. */
    public static final int WRITABILITY_CHANGED = ConnectionOutput.WRITABILITY_CHANGED;
    /** Event: the connection closed (reported once), with the connection's close cause. */
    public static final int CLOSED = ConnectionOutput.CLOSED;

    /** What the connection produced and the driver has not yet collected. */
    protected final ConnectionOutput out = new ConnectionOutput();
    private final BooleanSupplier writableNow = this::isWritable;

    /** Whether the application may write now (read at each collect, for the writability event). */
    public abstract boolean isWritable();

    /**
     * The next datagram to send to the peer, or {@code null} if there is none; ownership passes to
     * the caller. Datagrams come in the order they must leave.
     */
    public final ByteBuf pollTransmit() {
        return out.pollTransmit();
    }

    /**
     * The next run of in-order payload for the application, or {@code null}; ownership passes to the
     * caller. The bytes count against the receive window until reported through {@link #consumed}.
     */
    public final ByteBuf pollData() {
        return out.pollData();
    }

    /**
     * The events raised since the last call, as a set of bits ({@link #CONNECTED},
     * {@link #END_OF_STREAM}, {@link #WRITABILITY_CHANGED}, {@link #CLOSED}); each is reported once.
     * Take the payload ({@link #pollData}) before acting on {@link #END_OF_STREAM} or {@link #CLOSED}:
     * it arrived before them.
     */
    public final int pollEvents() {
        return out.pollEvents();
    }

    /**
     * Hands everything produced so far to {@code sink}, in order: datagrams, then the handshake's
     * completion, payload, the end of the stream, a writability change and the close. What the sink
     * does may make the connection produce more; that is handed over too, until a round finds nothing.
     * With {@code transmit} false the datagrams stay queued, in order, for a later collect (the driver's
     * socket cannot take them now); {@link #hasTransmit()} then says whether any wait.
     */
    @Override
    public final void collect(ConnectionSink sink, boolean transmit) {
        out.drainTo(sink, transmit, writableNow);
    }

    /** Whether datagrams wait to be collected (left by a {@link #collect(ConnectionSink, boolean)} that took none). */
    @Override
    public final boolean hasTransmit() {
        return out.hasTransmits();
    }

    /**
     * Releases datagrams and payload produced but never collected, for a driver that gives the
     * connection up without draining it (its socket closed).
     */
    @Override
    public final void releaseUncollected() {
        out.releaseAll();
    }
}
