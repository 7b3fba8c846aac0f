package io.ferry.examples.transfer;

import io.ferry.transport.TransportStatistics;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The outcome of one file transfer, on either side.
 *
 * @param name       the file's name as sent
 * @param bytes      the file's size
 * @param elapsed    from the offer to the verdict
 * @param sha256     the content's SHA-256
 * @param storedAt   where the receiver stored it (receiver side only)
 * @param statistics the connection's statistics at the end, if known
 */
public record TransferResult(String name, long bytes, Duration elapsed, byte[] sha256, Optional<Path> storedAt,
                             Optional<TransportStatistics> statistics) {

    /** Throughput in bytes per second. */
    public double bytesPerSecond() {
        double seconds = Math.max(elapsed.toNanos(), 1) / 1e9;
        return bytes / seconds;
    }

    /** The SHA-256 in lower-case hex. */
    public String sha256Hex() {
        return HexFormat.of().formatHex(sha256);
    }
}
