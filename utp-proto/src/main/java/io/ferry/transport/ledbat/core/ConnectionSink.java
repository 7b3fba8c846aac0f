package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;

/**
 * Where {@link UtpConnection#collect} hands what a connection produced: the driver's side of the
 * pull, written once instead of a polling loop in every driver. Nothing here is called from inside the
 * connection's handling of a packet or a timer; the methods run from {@code collect}, on the driver's
 * thread, and may call into the connection ({@code write}, {@code flush}, {@code consumed},
 * {@code close}, {@code abort}); what those produce is collected in the same call.
 */
public interface ConnectionSink {

    /** A datagram for the peer; ownership passes. */
    void send(ByteBuf packet);

    /**
     * A datagram for the peer: bytes {@code offset} to {@code offset + length} of {@code whole}, a buffer the
     * connection keeps (its packets side by side, {@code PacketBuffers}). {@code whole} is valid during the
     * call only: a sink that keeps the bytes retains it, once for a run of consecutive places (the UDP
     * driver sends such a run as one slice of it). By default, a retained slice goes to {@link #send}.
     */
    default void sendPart(ByteBuf whole, int offset, int length) {
        send(whole.retainedSlice(offset, length));
    }

    /** The handshake completed. */
    void connected();

    /** In-order payload; ownership passes. It counts against the receive window until {@link UtpConnection#consumed}. */
    void data(ByteBuf payload);

    /** The peer's FIN was reached, after the last {@link #data}. */
    void endOfStream();

    /** {@link UtpConnection#isWritable()} changed to {@code writable}. */
    void writabilityChanged(boolean writable);

    /** The connection closed; {@code causeOrNull} as {@link UtpConnection#closeCause()}. */
    void closed(Throwable causeOrNull);
}
