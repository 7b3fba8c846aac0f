package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;

import java.util.ArrayDeque;

/**
 * What a {@link UtpConnection} produced and its driver has not yet collected: datagrams to send,
 * in-order payloads for the application, and events. The connection only adds here; the driver takes
 * through {@link UtpConnection#pollTransmit}, {@link UtpConnection#pollData} and
 * {@link UtpConnection#pollEvents}, after each call into the connection.
 */
final class ConnectionOutput {
    private final ArrayDeque<ByteBuf> transmits = new ArrayDeque<>();
    private final ArrayDeque<ByteBuf> data = new ArrayDeque<>();
    private int events;
    private Throwable closeCause;

    /** A datagram for the peer (ownership passes to this queue). */
    void send(ByteBuf packet) {
        transmits.add(packet);
    }

    /** In-order payload for the application (ownership passes to this queue). */
    void deliver(ByteBuf payload) {
        data.add(payload);
    }

    void event(int event) {
        events |= event;
    }

    void closed(Throwable cause) {
        closeCause = cause;
        events |= UtpConnection.CLOSED;
    }

    ByteBuf pollTransmit() {
        return transmits.poll();
    }

    boolean hasTransmits() {
        return !transmits.isEmpty();
    }

    ByteBuf pollData() {
        return data.poll();
    }

    int pollEvents() {
        int e = events;
        events = 0;
        return e;
    }

    Throwable closeCause() {
        return closeCause;
    }

    /** Releases whatever was not collected. */
    void releaseAll() {
        for (ByteBuf b; (b = transmits.poll()) != null; ) {
            b.release();
        }
        for (ByteBuf b; (b = data.poll()) != null; ) {
            b.release();
        }
    }
}
