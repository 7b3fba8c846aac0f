package io.ferry.transport.ledbat.core;

/**
 * A connection's two byte streams as its application sees them, read-only: room and size of the send and
 * receive buffers, the bytes not yet acknowledged, and which ends are shut. It is a view in the manner of
 * quinn-proto's {@code SendStream} / {@code RecvStream}: the connection hands it out
 * ({@link UtpConnection#streams()}), its parts answer, and nothing here changes the connection.
 */
public final class ByteStreams {
    private final SendPath send;
    private final InboundStream inbound;

    ByteStreams(SendPath send, InboundStream inbound) {
        this.send = send;
        this.inbound = inbound;
    }

    /** How many more bytes {@link UtpConnection#write} would accept now. */
    public long sendBufferSpace() {
        return send.sendBufferSpace();
    }

    /** The send buffer's current size in bytes: it grows from the configured size (see {@link UtpConfig}). */
    public long sendBufferLimit() {
        return send.sendBufferLimit();
    }

    /** The receive buffer's current size in bytes (memory, as charged): it grows from the configured size. */
    public long receiveBufferLimit() {
        return inbound.bufferLimit();
    }

    /**
     * Application bytes written that the peer has not acknowledged cumulatively (so not yet delivered to
     * its application, or at least not known to be): queued, in flight, lost or only selectively
     * acknowledged. Still meaningful after the connection closed: it is then what the connection lost.
     */
    public long unacknowledgedBytes() {
        return send.unacknowledgedBytes();
    }

    /** Whether the output was shut down ({@link UtpConnection#shutdownOutput} or {@link UtpConnection#close}). */
    public boolean isOutputShutdown() {
        return send.isOutputShutdown();
    }

    /** Whether the peer acknowledged our FIN, and with it every byte written before it. */
    public boolean isEndOfStreamAcknowledged() {
        return send.isFinAcked();
    }

    /** Whether the peer's FIN was reached: no more data will be delivered. */
    public boolean isInputShutdown() {
        return inbound.isFinished();
    }
}
