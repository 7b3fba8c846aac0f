package io.ferry.cli.transfer;

/**
 * Told how a session advances, file by file. Called from network and disk threads: implementations
 * must be quick and thread-safe. Files are identified by the session's file id.
 */
public interface ProgressListener {

    /** A session of {@code files} files, {@code totalBytes} in all, started. */
    default void sessionStarted(int files, long totalBytes) {
    }

    /**
     * File {@code id} started; {@code resumedFrom} bytes were already at the receiver and are not sent again.
     * Called again for the same file when a file started before the receiver's answer turns out to be held
     * there (protocol 6's eager start), with what the receiver holds: the progress starts over from there.
     */
    default void fileStarted(int id, String name, long size, long resumedFrom) {
    }

    /** {@code done} bytes of file {@code id} are at the receiver or on their way (resumed bytes included). */
    default void fileAdvanced(int id, long done) {
    }

    /**
     * The receiver says it has taken {@code bytes} of content in this session (its ALIVE frames, twice a
     * second): what is at the receiver, where {@link #fileAdvanced} counts what left this side.
     */
    default void receiverTook(long bytes) {
    }

    /** File {@code id} is finished, successfully or not. */
    default void fileFinished(int id, boolean ok) {
    }

    /** The session ended. */
    default void sessionFinished() {
    }

    /** Reports nothing. */
    ProgressListener NONE = new ProgressListener() {
    };
}
