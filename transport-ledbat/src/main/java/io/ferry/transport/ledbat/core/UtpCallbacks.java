package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;

/**
 * What a {@link UtpConnection} asks of the code that drives it. All methods are called synchronously
 * from inside the connection's entry points (including its factories), on the caller's thread.
 *
 * <p>Callbacks may call back into the connection ({@code write}, {@code flush}, {@code consumed},
 * {@code close}, {@code abort}, ...), but not into {@code onPacket} or {@code onTimer}.
 */
public interface UtpCallbacks {

    /**
     * Sends one datagram to the peer. Ownership of {@code packet} passes to the callee, which must
     * release it (typically by writing it to the socket). Must not call back into the connection.
     */
    void sendPacket(ByteBuf packet);

    /** The handshake completed (called once; for an acceptor, before {@code accept} returns). */
    void onConnected();

    /**
     * In-order payload arrived. Ownership of {@code data} passes to the callee. The bytes count against
     * the receive window until reported through {@link UtpConnection#consumed(int)}.
     */
    void onData(ByteBuf data);

    /** The peer's FIN was reached in order: no more data will arrive (called at most once). */
    void onEndOfStream();

    /**
     * The connection's writability changed: see {@link UtpConnection#isWritable()}.
     *
     * @param writable the new state
     */
    void onWritabilityChanged(boolean writable);

    /**
     * The connection closed (called exactly once). After this every entry point is a no-op, except
     * that a gracefully closed connection may still acknowledge the peer's retransmitted FIN until
     * {@link UtpConnection#isTerminated()}.
     *
     * @param causeOrNull {@code null} after a graceful close or a local {@code abort()}; otherwise a
     *                    {@link UtpException} saying why
     */
    void onClosed(Throwable causeOrNull);
}
