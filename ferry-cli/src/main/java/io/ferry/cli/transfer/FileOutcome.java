package io.ferry.cli.transfer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;

/**
 * What became of one file of a session, on either side.
 *
 * @param name        the file's name as sent ('/'-separated relative path)
 * @param size        the file's size
 * @param transferred content bytes that crossed the network for it (less than {@code size} after a resume)
 * @param resumedFrom bytes the receiver already held and verified, not sent again
 * @param status      stored, already present, or failed
 * @param message     why it failed, or what the receiver said
 * @param digest      the content's checksum when known
 * @param checksum    which checksum {@code digest} is
 * @param elapsed     from the offer to the verdict
 * @param storedAt    where the receiver stored it (receiver side only)
 */
public record FileOutcome(String name, long size, long transferred, long resumedFrom, Status status, String message,
                          Optional<byte[]> digest, Checksum checksum, Duration elapsed, Optional<Path> storedAt) {

    /** How a file ended. */
    public enum Status {
        /** Moved, verified and renamed into place. */
        STORED,
        /** The receiver already had it with the same checksum; nothing was sent. */
        ALREADY_PRESENT,
        /** Refused or failed; {@link #message()} says why. */
        FAILED
    }

    /** Whether the receiver now holds the file, verified. */
    public boolean ok() {
        return status != Status.FAILED;
    }

    /** The checksum in lower-case hex, or an empty string. */
    public String digestHex() {
        return digest.map(HexFormat.of()::formatHex).orElse("");
    }

    /** Transferred bytes per second. */
    public double bytesPerSecond() {
        return transferred / (Math.max(elapsed.toNanos(), 1) / 1e9);
    }
}
