package io.ferry.transport;

import java.io.IOException;
import java.net.SocketAddress;

/**
 * A graceful close could not confirm that the peer has everything: the {@link FerryChannelOption#LINGER}
 * ran out, the peer reset the connection or stopped answering, or the transport was closed, while bytes
 * written before the close were still unacknowledged. The connection was reset; the bytes it names may
 * or may not have reached the peer's application, and every byte before them did.
 *
 * <p>This is the failure of a connection's {@code close()} future; {@link Transports#close()} reports
 * the connections it had to drop with a {@link DataLossException} that carries one of these for each.
 */
public class UndeliveredDataException extends IOException {
    private static final long serialVersionUID = 1L;

    private final transient SocketAddress remote;
    private final long unacknowledgedBytes;
    private final boolean endOfStreamAcknowledged;
    private final boolean estimated;

    /**
     * @param remote                  the peer, for the message
     * @param unacknowledgedBytes     application bytes written before the close that the peer did not acknowledge
     * @param endOfStreamAcknowledged whether the peer acknowledged the end of stream
     * @param estimated               whether the transport could only bound the count (it then names an upper bound)
     * @param why                     what ended the wait, such as "LINGER PT30S ran out"
     */
    public UndeliveredDataException(SocketAddress remote, long unacknowledgedBytes, boolean endOfStreamAcknowledged,
                                    boolean estimated, String why) {
        super(message(remote, unacknowledgedBytes, endOfStreamAcknowledged, estimated, why));
        this.remote = remote;
        this.unacknowledgedBytes = unacknowledgedBytes;
        this.endOfStreamAcknowledged = endOfStreamAcknowledged;
        this.estimated = estimated;
    }

    private static String message(SocketAddress remote, long bytes, boolean eosAcked, boolean estimated, String why) {
        String what = bytes > 0
                ? (estimated ? "up to " : "") + bytes + " byte" + (bytes == 1 ? "" : "s") + " written before the close"
                        + " were not acknowledged by " + remote
                : "every byte was acknowledged by " + remote + " but the end of stream was not";
        return "close gave up: " + why + "; " + what + (bytes > 0 && !eosAcked ? " (nor the end of stream)" : "");
    }

    /** The peer's address. */
    public SocketAddress remote() {
        return remote;
    }

    /**
     * Application bytes written before the close that the peer had not acknowledged: the tail of the
     * stream that may be missing at the peer. An upper bound when {@link #isEstimated()}.
     */
    public long unacknowledgedBytes() {
        return unacknowledgedBytes;
    }

    /** Whether the peer acknowledged the end of stream (then every byte arrived). */
    public boolean isEndOfStreamAcknowledged() {
        return endOfStreamAcknowledged;
    }

    /** Whether {@link #unacknowledgedBytes()} is an upper bound rather than an exact count (UDT counts packets). */
    public boolean isEstimated() {
        return estimated;
    }
}
