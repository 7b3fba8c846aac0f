package io.ferry.transport;

/** A transport is installed but cannot run here (for example, its native library has no build for this platform). */
public class TransportUnavailableException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public TransportUnavailableException(String message) {
        super(message);
    }

    public TransportUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
