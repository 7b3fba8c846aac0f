package io.ferry.transport.ledbat.core;

/**
 * Live counters of one connection. Read them on the connection's thread (or accept slightly stale
 * values from another one).
 */
public final class ConnectionStats {
    long payloadBytesSent;
    long payloadBytesResent;
    long payloadBytesReceived;
    long packetsSent;
    long packetsReceived;
    long retransmissions;
    long packetsLost;
    long timeouts;
    long tailLossProbes;
    long duplicatePacketsReceived;
    long malformedPacketsDropped;
    long implausiblePacketsDropped;
    long handshakeAnswersWithheld;

    ConnectionStats() {
    }

    /** Payload bytes put on the wire, retransmissions included. */
    public long payloadBytesSent() {
        return payloadBytesSent;
    }

    /** Distinct payload bytes put on the wire: the application's bytes sent so far, each counted once. */
    public long distinctPayloadBytesSent() {
        return payloadBytesSent - payloadBytesResent;
    }

    /** Distinct payload bytes received and delivered in order. */
    public long payloadBytesReceived() {
        return payloadBytesReceived;
    }

    /** Datagrams sent, of every type. */
    public long packetsSent() {
        return packetsSent;
    }

    /** Valid datagrams received, of every type. */
    public long packetsReceived() {
        return packetsReceived;
    }

    /** Packets sent again (after a loss was detected or a timeout fired). */
    public long retransmissions() {
        return retransmissions;
    }

    /** Packets detected lost by duplicate or selective acknowledgements. */
    public long packetsLost() {
        return packetsLost;
    }

    /** Retransmission timeouts that fired. */
    public long timeouts() {
        return timeouts;
    }

    /** Tail-loss probes sent (one packet after about two round trips without an acknowledgement). */
    public long tailLossProbes() {
        return tailLossProbes;
    }

    /** Data packets received that had already been received. */
    public long duplicatePacketsReceived() {
        return duplicatePacketsReceived;
    }

    /** Datagrams dropped because they were malformed (see {@code PacketValidity}). */
    public long malformedPacketsDropped() {
        return malformedPacketsDropped;
    }

    /**
     * Well-formed packets dropped because they could not come from the peer: a RESET or STATE whose
     * numbers do not fit what was sent, or a packet that does not acknowledge the handshake answer.
     */
    public long implausiblePacketsDropped() {
        return implausiblePacketsDropped;
    }

    /** Repeats of the handshake answer not sent because they would have exceeded the amplification bound. */
    public long handshakeAnswersWithheld() {
        return handshakeAnswersWithheld;
    }
}
