package io.ferry.examples.transfer;

/** Told how a transfer advances. Called on a network thread: implementations must be quick and thread-safe. */
public interface ProgressListener {

    /** A transfer of {@code size} bytes named {@code name} started. */
    void started(String name, long size);

    /** {@code total} bytes of the current file have been moved so far. */
    void advanced(long total);

    /** The current file is finished (successfully or not). */
    void finished();

    /** Reports nothing. */
    ProgressListener NONE = new ProgressListener() {
        @Override
        public void started(String name, long size) {
        }

        @Override
        public void advanced(long total) {
        }

        @Override
        public void finished() {
        }
    };
}
