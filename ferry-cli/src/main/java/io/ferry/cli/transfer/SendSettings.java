package io.ferry.cli.transfer;

/**
 * How a sender paces a session.
 *
 * @param chunkSize        content bytes per DATA frame
 * @param parallelFiles    files streaming at once on the connection (their chunks interleave)
 * @param rateLimit        bytes per second the sender does not exceed, 0 for no limit
 * @param handshakeSeconds how long to wait for the receiver's hello
 */
public record SendSettings(int chunkSize, int parallelFiles, long rateLimit, int handshakeSeconds) {

    /** 256 KiB chunks, four files at once, no rate limit, 30 s for the receiver to answer. */
    public static SendSettings defaults() {
        return new SendSettings(256 * 1024, 4, 0, 30);
    }

    public SendSettings {
        if (chunkSize < 1024 || chunkSize > (16 << 20)) {
            throw new IllegalArgumentException("chunk size must be between 1K and 16M, got " + chunkSize);
        }
        if (parallelFiles < 1 || parallelFiles > 64) {
            throw new IllegalArgumentException("parallel files must be between 1 and 64, got " + parallelFiles);
        }
        if (rateLimit < 0) {
            throw new IllegalArgumentException("rate limit must not be negative, got " + rateLimit);
        }
    }

    public SendSettings withChunkSize(int bytes) {
        return new SendSettings(bytes, parallelFiles, rateLimit, handshakeSeconds);
    }

    public SendSettings withParallelFiles(int files) {
        return new SendSettings(chunkSize, files, rateLimit, handshakeSeconds);
    }

    public SendSettings withRateLimit(long bytesPerSecond) {
        return new SendSettings(chunkSize, parallelFiles, bytesPerSecond, handshakeSeconds);
    }
}
