package io.ferry.transport.udt.proto.core;

import io.netty.buffer.ByteBuf;

import java.util.ArrayDeque;

/** What a {@link UdtConnection} produced and its driver has not yet collected. */
final class UdtOutput {
    private final ArrayDeque<ByteBuf> transmits = new ArrayDeque<>();
    private final ArrayDeque<ByteBuf> data = new ArrayDeque<>();
    private int events;
    private Throwable closeCause;

    void send(ByteBuf packet) {
        transmits.add(packet);
    }

    void deliver(ByteBuf payload) {
        data.add(payload);
    }

    void event(int event) {
        events |= event;
    }

    void closed(Throwable cause) {
        closeCause = cause;
        events |= UdtConnection.CLOSED;
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

    void releaseAll() {
        for (ByteBuf b; (b = transmits.poll()) != null; ) {
            b.release();
        }
        for (ByteBuf b; (b = data.poll()) != null; ) {
            b.release();
        }
    }
}
