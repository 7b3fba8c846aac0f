package io.ferry.transport;

/**
 * A transport was given an option it cannot honour, or an option value it cannot apply
 * (for example a congestion-control algorithm the kernel does not have).
 */
public class UnsupportedOptionException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public UnsupportedOptionException(String message) {
        super(message);
    }

    public UnsupportedOptionException(String message, Throwable cause) {
        super(message, cause);
    }
}
