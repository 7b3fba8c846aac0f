package io.ferry.transport.udt.proto.core;

import java.io.IOException;

/** Why a UDT connection failed: refused, timed out, the peer went silent or signalled an error. */
public final class UdtException extends IOException {
    private static final long serialVersionUID = 1L;

    /** Creates an exception with its message. */
    public UdtException(String message) {
        super(message);
    }
}
