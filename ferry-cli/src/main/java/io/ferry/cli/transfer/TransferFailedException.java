package io.ferry.cli.transfer;

/** A transfer that did not end with a stored, verified file; the message says why. */
public class TransferFailedException extends Exception {
    private static final long serialVersionUID = 1L;

    public TransferFailedException(String message) {
        super(message);
    }

    public TransferFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
