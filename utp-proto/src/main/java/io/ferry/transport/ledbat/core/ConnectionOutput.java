package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;

import java.util.ArrayDeque;
import java.util.function.BooleanSupplier;

/**
 * What a protocol connection (uTP's {@link UtpConnection}, UDT's) produced and its driver has not yet collected: datagrams to send,
 * in-order payloads for the application, and events. The connection only adds here; the driver takes
 * through {@link UtpConnection#pollTransmit}, {@link UtpConnection#pollData} and
 * {@link UtpConnection#pollEvents}, after each call into the connection.
 *
 * <p>A datagram is a buffer of its own ({@link #send}) or a place in a buffer the connection keeps
 * ({@link #sendPart}: a packet in its slab, {@link PacketBuffers}). The queue holds one reference to such a
 * buffer for each run of places in it queued one after another, not one per datagram, so that it stays
 * valid until the driver took them, whatever the connection releases meanwhile.
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

    private final Transmits transmits = new Transmits();
    private final ArrayDeque<ByteBuf> data = new ArrayDeque<>();
    private int events;
    private Throwable closeCause;

    /** A datagram for the peer (ownership passes to this queue). */
    public void send(ByteBuf packet) {
        transmits.add(packet, -1, 0);
    }

    /** A datagram for the peer: bytes {@code offset} to {@code offset + length} of {@code whole}, which stays the caller's. */
    public void sendPart(ByteBuf whole, int offset, int length) {
        transmits.add(whole, offset, length);
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

    /** The next datagram, a buffer of its own (a place in a buffer comes as a retained slice); ownership passes. */
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
            while (transmit && transmits.takeTo(sink)) {
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
        transmits.releaseAll();
        for (ByteBuf b; (b = data.poll()) != null; ) {
            b.release();
        }
    }

    /**
     * Datagrams in the order they leave, in parallel arrays of a growing ring: the buffer, where the
     * datagram starts in it (-1: the whole buffer, owned) and its length. The queue holds one reference to a
     * buffer per run of places in it queued one after another (owned datagrams between them do not end a
     * run). Datagrams leave from the head, so the place leaving is always the first of its run: the run's
     * reference goes on with the next place if that is in the same buffer, else back to the buffer.
     */
    private static final class Transmits {
        private ByteBuf[] bufs = new ByteBuf[16];
        private int[] offsets = new int[16];
        private int[] lengths = new int[16];
        private int head;
        private int size;
        /** The buffer of the last place queued while a place is queued (its run's), else null. */
        private ByteBuf lastPlace;

        boolean isEmpty() {
            return size == 0;
        }

        void add(ByteBuf buf, int offset, int length) {
            if (offset >= 0 && buf != lastPlace) {
                buf.retain(); // once per run of places in one buffer
                lastPlace = buf;
            }
            if (size == bufs.length) {
                grow();
            }
            int i = (head + size) & (bufs.length - 1);
            bufs[i] = buf;
            offsets[i] = offset;
            lengths[i] = length;
            size++;
        }

        /** Hands the first datagram to {@code sink}; false if there is none. What the sink queues meanwhile follows it. */
        boolean takeTo(ConnectionSink sink) {
            if (size == 0) {
                return false;
            }
            ByteBuf buf = bufs[head];
            int offset = offsets[head];
            int length = lengths[head];
            removeHead();
            if (offset < 0) {
                sink.send(buf);
                return true;
            }
            try {
                sink.sendPart(buf, offset, length);
            } finally {
                placeLeft(buf);
            }
            return true;
        }

        ByteBuf poll() {
            if (size == 0) {
                return null;
            }
            ByteBuf buf = bufs[head];
            int offset = offsets[head];
            int length = lengths[head];
            removeHead();
            if (offset < 0) {
                return buf;
            }
            ByteBuf slice = buf.retainedSlice(offset, length);
            placeLeft(buf);
            return slice;
        }

        void releaseAll() {
            while (size > 0) {
                ByteBuf buf = bufs[head];
                boolean owned = offsets[head] < 0;
                removeHead();
                if (owned) {
                    buf.release();
                } else {
                    placeLeft(buf);
                }
            }
        }

        /** The first place of its run in {@code buf} left the queue (after the sink had it, which may have queued more). */
        private void placeLeft(ByteBuf buf) {
            for (int k = 0; k < size; k++) {
                int j = (head + k) & (bufs.length - 1);
                if (offsets[j] >= 0) {
                    if (bufs[j] != buf) {
                        buf.release(); // the run ended; other places are queued, so lastPlace stays theirs
                    }
                    return; // else the next place carries the run's reference on
                }
            }
            lastPlace = null;
            buf.release();
        }

        private void removeHead() {
            bufs[head] = null;
            head = (head + 1) & (bufs.length - 1);
            size--;
        }

        private void grow() {
            int n = bufs.length;
            ByteBuf[] b = new ByteBuf[2 * n];
            int[] o = new int[2 * n];
            int[] l = new int[2 * n];
            for (int k = 0; k < size; k++) {
                int from = (head + k) & (n - 1);
                b[k] = bufs[from];
                o[k] = offsets[from];
                l[k] = lengths[from];
            }
            bufs = b;
            offsets = o;
            lengths = l;
            head = 0;
        }
    }
}
