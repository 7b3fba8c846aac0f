package io.ferry.transport.udt.proto.core;

import java.io.IOException;

/** Why a UDT connection failed: refused, timed out, the peer went silent or signalled an error. */
public final class UdtException extends IOException {
    private static final long serialVersionUID = 1L;

    /** Creates an exception with its message. */
    public UdtException(String message) {
        super(message);
    }

    /**
     * The peer said nothing for {@code silentMillis}: the message stays a sentence for the application,
     * and {@code state} (this side's connection when it gave up) rides in the trace as a suppressed
     * exception, to tell a peer that stopped sending from packets that did not get through.
     */
    static UdtException peerSilent(long silentMillis, String state) {
        UdtException e = new UdtException("the UDT peer went silent: nothing heard for " + silentMillis + " ms");
        e.addSuppressed(new UdtException("this side when it gave up: " + state));
        return e;
    }
}
