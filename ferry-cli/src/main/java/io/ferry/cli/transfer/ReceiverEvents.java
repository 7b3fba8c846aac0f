package io.ferry.cli.transfer;

/** What a receiver reports. Called from network and disk threads. */
public interface ReceiverEvents {

    /** A sender's file started; {@code resumedFrom} bytes were already here, verified, and are not sent again. */
    default void fileStarted(String peer, String name, long size, long resumedFrom) {
    }

    /** A file was stored and verified (or was already present with the same SHA-256). */
    void stored(FileOutcome outcome);

    /** A whole session (or a sender) was refused or failed; the message says why. */
    void failed(String message);

    /**
     * File {@code name} from {@code peer} was refused or failed; the message says why (and names both).
     * Reported as {@link #failed} unless overridden.
     */
    default void fileFailed(String peer, String name, String message) {
        failed(message);
    }

    /** Sender {@code peer}'s session has taken {@code bytes} of content so far (twice a second, with its ALIVE beat). */
    default void took(String peer, long bytes) {
    }

    /** A session ended; {@code ok} if every file it offered was stored. */
    default void sessionEnded(String peer, boolean ok) {
    }
}
