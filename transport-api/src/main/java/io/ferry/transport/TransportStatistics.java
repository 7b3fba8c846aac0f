package io.ferry.transport;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A snapshot of one connection's statistics, the same type for every transport. Values a transport
 * cannot know are empty rather than zero (TCP over Java NIO has no RTT, for example; only LEDBAT knows
 * its queuing delay).
 */
public final class TransportStatistics {

    private static final long UNKNOWN = -1;

    private final String transport;
    private final String implementation;
    private final long bytesSent;
    private final long bytesReceived;
    private final long smoothedRttMicros;
    private final long rttVarianceMicros;
    private final long congestionWindowBytes;
    private final long retransmissions;
    private final long packetsLost;
    private final long queuingDelayMicros;
    private final long estimatedBandwidth;
    private final long sendRate;

    private TransportStatistics(Builder b) {
        this.transport = Objects.requireNonNull(b.transport, "transport");
        this.implementation = Objects.requireNonNull(b.implementation, "implementation");
        this.bytesSent = b.bytesSent;
        this.bytesReceived = b.bytesReceived;
        this.smoothedRttMicros = b.smoothedRttMicros;
        this.rttVarianceMicros = b.rttVarianceMicros;
        this.congestionWindowBytes = b.congestionWindowBytes;
        this.retransmissions = b.retransmissions;
        this.packetsLost = b.packetsLost;
        this.queuingDelayMicros = b.queuingDelayMicros;
        this.estimatedBandwidth = b.estimatedBandwidth;
        this.sendRate = b.sendRate;
    }

    /** A builder; {@code transport} is the transport name, {@code implementation} how it runs (e.g. {@code epoll}). */
    public static Builder builder(String transport, String implementation) {
        return new Builder(transport, implementation);
    }

    /** The transport's name, e.g. {@code tcp}. */
    public String transport() {
        return transport;
    }

    /** How the transport runs here, e.g. {@code epoll} or {@code nio} for TCP. */
    public String implementation() {
        return implementation;
    }

    /** Application bytes handed to the transport for sending. */
    public long bytesSent() {
        return bytesSent;
    }

    /** Application bytes delivered by the transport. */
    public long bytesReceived() {
        return bytesReceived;
    }

    /** The smoothed round-trip time, if the transport measures it. */
    public Optional<Duration> smoothedRtt() {
        return micros(smoothedRttMicros);
    }

    /** The round-trip-time variation, if the transport measures it. */
    public Optional<Duration> rttVariance() {
        return micros(rttVarianceMicros);
    }

    /** The congestion window in bytes, if the transport has one it can report. */
    public OptionalLong congestionWindowBytes() {
        return optional(congestionWindowBytes);
    }

    /** Packets (or segments) sent again, if known. */
    public OptionalLong retransmissions() {
        return optional(retransmissions);
    }

    /** Packets (or segments) detected as lost, if known. */
    public OptionalLong packetsLost() {
        return optional(packetsLost);
    }

    /** The queuing delay the connection measures on its path, if known (delay-based congestion control). */
    public Optional<Duration> queuingDelay() {
        return micros(queuingDelayMicros);
    }

    /** The path bandwidth the transport estimates, in bytes per second, if it estimates one (UDT does). */
    public OptionalLong estimatedBandwidth() {
        return optional(estimatedBandwidth);
    }

    /** The rate the connection is sending at, in bytes per second, if the transport reports it. */
    public OptionalLong sendRate() {
        return optional(sendRate);
    }

    private static Optional<Duration> micros(long value) {
        return value < 0 ? Optional.empty() : Optional.of(Duration.ofNanos(value * 1_000));
    }

    private static OptionalLong optional(long value) {
        return value < 0 ? OptionalLong.empty() : OptionalLong.of(value);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(transport).append('/').append(implementation)
                .append(" sent=").append(bytesSent).append(" received=").append(bytesReceived);
        append(s, "srtt_us", smoothedRttMicros);
        append(s, "rttvar_us", rttVarianceMicros);
        append(s, "cwnd", congestionWindowBytes);
        append(s, "retransmissions", retransmissions);
        append(s, "lost", packetsLost);
        append(s, "queuing_delay_us", queuingDelayMicros);
        append(s, "bandwidth_Bps", estimatedBandwidth);
        append(s, "send_rate_Bps", sendRate);
        return s.toString();
    }

    private static void append(StringBuilder s, String name, long value) {
        if (value >= 0) {
            s.append(' ').append(name).append('=').append(value);
        }
    }

    /** Builds a snapshot; anything not set is reported as unknown. */
    public static final class Builder {
        private final String transport;
        private final String implementation;
        private long bytesSent;
        private long bytesReceived;
        private long smoothedRttMicros = UNKNOWN;
        private long rttVarianceMicros = UNKNOWN;
        private long congestionWindowBytes = UNKNOWN;
        private long retransmissions = UNKNOWN;
        private long packetsLost = UNKNOWN;
        private long queuingDelayMicros = UNKNOWN;
        private long estimatedBandwidth = UNKNOWN;
        private long sendRate = UNKNOWN;

        private Builder(String transport, String implementation) {
            this.transport = transport;
            this.implementation = implementation;
        }

        public Builder bytesSent(long value) {
            this.bytesSent = requireNonNegative("bytesSent", value);
            return this;
        }

        public Builder bytesReceived(long value) {
            this.bytesReceived = requireNonNegative("bytesReceived", value);
            return this;
        }

        public Builder smoothedRttMicros(long value) {
            this.smoothedRttMicros = requireNonNegative("smoothedRttMicros", value);
            return this;
        }

        public Builder rttVarianceMicros(long value) {
            this.rttVarianceMicros = requireNonNegative("rttVarianceMicros", value);
            return this;
        }

        public Builder congestionWindowBytes(long value) {
            this.congestionWindowBytes = requireNonNegative("congestionWindowBytes", value);
            return this;
        }

        public Builder retransmissions(long value) {
            this.retransmissions = requireNonNegative("retransmissions", value);
            return this;
        }

        public Builder packetsLost(long value) {
            this.packetsLost = requireNonNegative("packetsLost", value);
            return this;
        }

        public Builder queuingDelayMicros(long value) {
            this.queuingDelayMicros = requireNonNegative("queuingDelayMicros", value);
            return this;
        }

        /** @param bytesPerSecond the estimated path bandwidth */
        public Builder estimatedBandwidth(long bytesPerSecond) {
            this.estimatedBandwidth = requireNonNegative("estimatedBandwidth", bytesPerSecond);
            return this;
        }

        /** @param bytesPerSecond the current sending rate */
        public Builder sendRate(long bytesPerSecond) {
            this.sendRate = requireNonNegative("sendRate", bytesPerSecond);
            return this;
        }

        public TransportStatistics build() {
            return new TransportStatistics(this);
        }

        private static long requireNonNegative(String name, long value) {
            if (value < 0) {
                throw new IllegalArgumentException(name + " must not be negative, got " + value);
            }
            return value;
        }
    }
}
