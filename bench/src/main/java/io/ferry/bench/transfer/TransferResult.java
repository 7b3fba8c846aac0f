package io.ferry.bench.transfer;

/**
 * The outcome of one transfer.
 *
 * @param ok            whether every byte arrived and the digests matched
 * @param bytes         the size that was to be moved
 * @param bytesReceived bytes the receiver got (all of them when {@code ok})
 * @param seconds       from the start of the connect to the receiver's digest arriving back (or to the failure)
 * @param failure       why it failed (timeout, refused option, mismatch, connection error), null when ok
 */
public record TransferResult(boolean ok, long bytes, long bytesReceived, double seconds, String failure) {

    /** Goodput in Mbit/s over the transfer's time (bytes received, whether or not it completed). */
    public double mbitPerSecond() {
        return seconds <= 0 ? 0 : bytesReceived * 8 / seconds / 1e6;
    }
}
