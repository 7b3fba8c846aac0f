package io.ferry.cli.transfer;

import io.ferry.transport.TransportStatistics;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The outcome of one sending session.
 *
 * @param files      each file's outcome, in the order they were given
 * @param elapsed    from connecting to the last verdict
 * @param statistics the connection's statistics at the end, if known
 * @param failure    why the session as a whole failed (lost connection, full disk, ...), if it did
 */
public record SessionResult(List<FileOutcome> files, Duration elapsed, Optional<TransportStatistics> statistics,
                            Optional<String> failure) {

    /** Whether every file is at the receiver, verified. */
    public boolean ok() {
        return failure.isEmpty() && files.stream().allMatch(FileOutcome::ok);
    }

    /** Content bytes that crossed the network. */
    public long transferred() {
        return files.stream().mapToLong(FileOutcome::transferred).sum();
    }

    /** The size of all files. */
    public long totalSize() {
        return files.stream().mapToLong(FileOutcome::size).sum();
    }

    /** Transferred bytes per second over the whole session. */
    public double bytesPerSecond() {
        return transferred() / (Math.max(elapsed.toNanos(), 1) / 1e9);
    }
}
