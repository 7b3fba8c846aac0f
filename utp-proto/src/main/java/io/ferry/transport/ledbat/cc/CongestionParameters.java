package io.ferry.transport.ledbat.cc;

/**
 * What a connection tells a congestion-control factory about itself.
 *
 * @param maxPayloadBytes   the largest payload of one packet (the MSS), in bytes, at least 1
 * @param targetDelayMicros the queuing-delay target for delay-based controllers, at least 1
 */
public record CongestionParameters(int maxPayloadBytes, long targetDelayMicros) {
    /** Validates the parameters. */
    public CongestionParameters {
        if (maxPayloadBytes < 1) {
            throw new IllegalArgumentException("maxPayloadBytes must be >= 1, was " + maxPayloadBytes);
        }
        if (targetDelayMicros < 1) {
            throw new IllegalArgumentException("targetDelayMicros must be >= 1, was " + targetDelayMicros);
        }
    }
}
