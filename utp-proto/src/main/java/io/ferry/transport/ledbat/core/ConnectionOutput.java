package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;

import java.util.ArrayDeque;

/**
 * What a protocol connection (uTP's {@link UtpConnection}, UDT's) produced and its driver has not yet collected: datagrams to send,
 * in-order payloads for the application, and events. The connection only adds here; the driver takes
 * through {@link UtpConnection#pollTransmit}, {@link UtpConnection#pollData} and
 * {@link UtpConnection#pollEvents}, after each call into the connection.
 */
public final class ConnectionOutput {
    /** The event bit {@link #closed} sets: the same value as {@code UtpConnection.CLOSED} and UDT's. */
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
