package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;

import java.util.ArrayDeque;
import java.util.function.BooleanSupplier;

/**
 * What a protocol connection (uTP's {@link UtpConnection}, UDT's) produced and its driver has not yet collected: datagrams to send,
 * in-order payloads for the application, and events. The connection only adds here; the driver takes
 * through {@link UtpConnection#pollTransmit}, {@link UtpConnection#pollData} and
 * {@link UtpConnection#pollEvents}, after each call into the connection.
 */
public final class ConnectionOutput {
    /** Event bit: the handshake completed. */
    public static final int CONNECTED = 1;
    /** Event bit: the peer's end of the stream was reached, after its last payload. */
    public static final int END_OF_STREAM = 2;
    /** Event bit: the connection's writability changed. */
    public static final int WRITABILITY_CHANGED = 4;
    /** The event bit {@link #closed} sets. */
    public static final int CLOSED = 8;

    private final ArrayDeque<ByteBuf> transmits = new ArrayDeque<>();
    private final ArrayDeque<ByteBuf> data = new ArrayDeque<>();
    private int events;
    private Throwable closeCause;

    /** A datagram for the peer (ownership passes to this queue). */
    public void send(ByteBuf packet) {
        transmits.add(packet);
    }

    /** In-order payload for the application (ownership passes to this queue). */
    public void deliver(ByteBuf payload) {
        data.add(payload);
    }

    public void event(int event) {
        events |= event;
    }

    public void closed(Throwable cause) {
        closeCause = cause;
        events |= CLOSED;
    }

    public ByteBuf pollTransmit() {
        return transmits.poll();
    }

    public boolean hasTransmits() {
        return !transmits.isEmpty();
    }

    public ByteBuf pollData() {
        return data.poll();
    }

    public int pollEvents() {
        int e = events;
        events = 0;
        return e;
    }

    public Throwable closeCause() {
        return closeCause;
    }

    /**
     * Hands everything queued to {@code sink}, in order: datagrams (unless {@code transmit} is false: they
     * then stay queued), the handshake's completion, payload, the end of the stream, a writability change
     * ({@code writable} read then) and the close. What the sink does may queue more; that is handed over
     * too, until a round finds nothing. The one place a connection's outputs leave it.
     */
    public void drainTo(ConnectionSink sink, boolean transmit, BooleanSupplier writable) {
        boolean found;
        do {
            found = false;
            for (ByteBuf p; transmit && (p = transmits.poll()) != null; ) {
                sink.send(p);
                found = true;
            }
            int e = pollEvents();
            if ((e & CONNECTED) != 0) {
                sink.connected();
            }
            for (ByteBuf d; (d = data.poll()) != null; ) {
                sink.data(d);
                found = true;
            }
            if ((e & END_OF_STREAM) != 0) {
                sink.endOfStream();
            }
            if ((e & WRITABILITY_CHANGED) != 0) {
                sink.writabilityChanged(writable.getAsBoolean());
            }
            if ((e & CLOSED) != 0) {
                sink.closed(closeCause);
            }
            found |= e != 0;
        } while (found);
    }

    /** Releases whatever was not collected. */
    public void releaseAll() {
        for (ByteBuf b; (b = transmits.poll()) != null; ) {
            b.release();
        }
        for (ByteBuf b; (b = data.poll()) != null; ) {
            b.release();
        }
    }
}
