package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.cc.CongestionControls;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBufAllocator;

import java.time.Duration;
import java.util.Objects;

/**
 * Immutable settings of one uTP connection. Build with {@link #builder()}; every setter validates its
 * value and throws {@link IllegalArgumentException} naming the field and its allowed range.
 *
 * <table>
 *   <caption>Fields, defaults and ranges</caption>
 *   <tr><th>field</th><th>default</th><th>range</th></tr>
 *   <tr><td>packetSize</td><td>1400 bytes</td><td>{@value #MIN_PACKET_SIZE}..{@value #MAX_PACKET_SIZE}</td></tr>
 *   <tr><td>sendBufferSize</td><td>4 MiB (or sendBufferMax if that is less)</td><td>{@value #MIN_BUFFER_SIZE}..{@value #MAX_BUFFER_SIZE}</td></tr>
 *   <tr><td>sendBufferMax</td><td>32 MiB; sendBufferSize if only that was set</td><td>sendBufferSize..{@value #MAX_BUFFER_SIZE}</td></tr>
 *   <tr><td>receiveBufferSize</td><td>4 MiB (or receiveBufferMax if that is less)</td><td>max(packetSize, {@value #MIN_BUFFER_SIZE})..{@value #MAX_BUFFER_SIZE}</td></tr>
 *   <tr><td>receiveBufferMax</td><td>32 MiB; receiveBufferSize if only that was set</td><td>receiveBufferSize..{@value #MAX_BUFFER_SIZE}</td></tr>
 *   <tr><td>targetDelay</td><td>60 ms (LEDBAT++)</td><td>1 ms..100 ms (RFC 6817 caps TARGET at 100 ms)</td></tr>
 *   <tr><td>congestionControl</td><td>"ledbat"</td><td>a name registered in {@link CongestionControls}</td></tr>
 *   <tr><td>minRto</td><td>500 ms</td><td>1 ms..60 s</td></tr>
 *   <tr><td>maxRto</td><td>10 s (or minRto if larger)</td><td>minRto..10 min</td></tr>
 *   <tr><td>maxRetransmits</td><td>10</td><td>1..100 consecutive timeouts</td></tr>
 *   <tr><td>connectTimeout</td><td>20 s</td><td>1 ms..10 min</td></tr>
 *   <tr><td>idleTimeout</td><td>60 s</td><td>0 (disabled)..24 h</td></tr>
 *   <tr><td>keepAliveInterval</td><td>15 s</td><td>0 (disabled)..24 h</td></tr>
 *   <tr><td>delayedAckTimeout</td><td>20 ms</td><td>0 (ack every packet)..500 ms</td></tr>
 *   <tr><td>closeTimeout</td><td>30 s</td><td>1 ms..10 min</td></tr>
 *   <tr><td>allocator</td><td>{@link ByteBufAllocator#DEFAULT}</td><td>non-null</td></tr>
 * </table>
 *
 * <p><b>Buffers that grow.</b> A window-based sender has at most one window in flight per round trip,
 * so throughput is bounded by {@code window / RTT}, and LEDBAT keeps up to {@code targetDelay} of data
 * queued besides. The receive window is memory (each kept payload is charged its buffer, about twice
 * its bytes), so the 4 MiB a connection starts with carries about 2 MB of payload per round trip:
 * some 110 Mbit/s at 150 ms. Both buffers therefore grow as a flow needs them, the way Linux grows a
 * TCP socket's unless the application fixed its size: the receive buffer to twice what the application
 * consumed in the last round trip (so it grows only while the peer's flight fills half of it and the
 * application keeps up; a reader that stops makes it grow no more), the send buffer to twice the
 * congestion window the peer's window allows; neither beyond its maximum ({@code receiveBufferMax},
 * {@code sendBufferMax}, 32 MiB by default, the default {@code tcp_rmem} maximum of current Linux
 * kernels), neither ever shrinking while the connection lives. Setting a size without its maximum
 * fixes it, as {@code SO_RCVBUF} and {@code SO_SNDBUF} lock a TCP socket's; setting the maximum to the
 * size does the same explicitly. Memory is held only while data is queued, reordered or unread, so an
 * idle connection costs little whatever its buffers grew to.
 */
public final class UtpConfig {
    /** Smallest packet size accepted (header included). */
    public static final int MIN_PACKET_SIZE = 150;
    /** Largest packet size accepted: the largest UDP payload over IPv4. */
    public static final int MAX_PACKET_SIZE = 65_507;
    /** Smallest send or receive buffer accepted. */
    public static final int MIN_BUFFER_SIZE = 1024;
    /** Largest send or receive buffer accepted. */
    public static final int MAX_BUFFER_SIZE = 256 * 1024 * 1024;
    /** The size a send or receive buffer may grow to unless the application chose its size or maximum. */
    public static final int DEFAULT_BUFFER_MAX = 32 * 1024 * 1024;

    private static final UtpConfig DEFAULTS = new Builder().build();

    private final int packetSize;
    private final int sendBufferSize;
    private final int sendBufferMax;
    private final int receiveBufferSize;
    private final int receiveBufferMax;
    private final boolean sendBufferSizeSet;
    private final boolean sendBufferMaxSet;
    private final boolean receiveBufferSizeSet;
    private final boolean receiveBufferMaxSet;
    private final long targetDelayNanos;
    private final String congestionControl;
    private final long minRtoNanos;
    private final long maxRtoNanos;
    private final boolean maxRtoSet;
    private final int maxRetransmits;
    private final long connectTimeoutNanos;
    private final long idleTimeoutNanos;
    private final long keepAliveIntervalNanos;
    private final long delayedAckTimeoutNanos;
    private final long closeTimeoutNanos;
    private final ByteBufAllocator allocator;

    private UtpConfig(Builder b) {
        this.packetSize = b.packetSize;
        this.sendBufferSize = Builder.startSize(b.sendBufferSize, b.sendBufferSizeSet, b.sendBufferMax);
        this.receiveBufferSize = Builder.startSize(b.receiveBufferSize, b.receiveBufferSizeSet, b.receiveBufferMax);
        this.sendBufferSizeSet = b.sendBufferSizeSet;
        this.receiveBufferSizeSet = b.receiveBufferSizeSet;
        this.sendBufferMaxSet = b.sendBufferMax >= 0;
        this.receiveBufferMaxSet = b.receiveBufferMax >= 0;
        this.sendBufferMax = Builder.resolveMax(b.sendBufferMax, sendBufferSize, b.sendBufferSizeSet);
        this.receiveBufferMax = Builder.resolveMax(b.receiveBufferMax, receiveBufferSize, b.receiveBufferSizeSet);
        this.targetDelayNanos = b.targetDelayNanos;
        this.congestionControl = b.congestionControl;
        this.minRtoNanos = b.minRtoNanos;
        this.maxRtoSet = b.maxRtoNanos >= 0;
        this.maxRtoNanos = maxRtoSet ? b.maxRtoNanos : Math.max(Builder.DEFAULT_MAX_RTO_NANOS, b.minRtoNanos);
        this.maxRetransmits = b.maxRetransmits;
        this.connectTimeoutNanos = b.connectTimeoutNanos;
        this.idleTimeoutNanos = b.idleTimeoutNanos;
        this.keepAliveIntervalNanos = b.keepAliveIntervalNanos;
        this.delayedAckTimeoutNanos = b.delayedAckTimeoutNanos;
        this.closeTimeoutNanos = b.closeTimeoutNanos;
        this.allocator = b.allocator;
    }

    /** Returns the configuration with every field at its default. */
    public static UtpConfig defaults() {
        return DEFAULTS;
    }

    /** Returns a builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** Returns a builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Largest uTP packet sent, header included, in bytes. */
    public int packetSize() {
        return packetSize;
    }

    /** Largest payload of one packet: {@code packetSize - 20}. */
    public int maxPayloadSize() {
        return packetSize - UtpWire.HEADER_SIZE;
    }

    /**
     * Bytes the application may have written but not yet acknowledged by the peer, when the connection
     * starts; it grows towards {@link #sendBufferMax()}.
     */
    public int sendBufferSize() {
        return sendBufferSize;
    }

    /** The most the send buffer grows to (equal to {@link #sendBufferSize()}: a fixed buffer). */
    public int sendBufferMax() {
        return sendBufferMax;
    }

    /**
     * Memory of received data buffered (reordered or not yet consumed) before the window closes, when
     * the connection starts; it grows towards {@link #receiveBufferMax()}.
     */
    public int receiveBufferSize() {
        return receiveBufferSize;
    }

    /** The most the receive buffer grows to (equal to {@link #receiveBufferSize()}: a fixed buffer). */
    public int receiveBufferMax() {
        return receiveBufferMax;
    }

    /** LEDBAT's queuing-delay target, in nanoseconds. */
    public long targetDelayNanos() {
        return targetDelayNanos;
    }

    /** The registered name of the congestion controller. */
    public String congestionControl() {
        return congestionControl;
    }

    /** Lower bound of the retransmission timeout, in nanoseconds. */
    public long minRtoNanos() {
        return minRtoNanos;
    }

    /** Upper bound of the retransmission timeout after back-off, in nanoseconds. */
    public long maxRtoNanos() {
        return maxRtoNanos;
    }

    /** Consecutive retransmission timeouts after which the peer is declared unreachable. */
    public int maxRetransmits() {
        return maxRetransmits;
    }

    /** Time the initiator waits for the handshake to complete, in nanoseconds. */
    public long connectTimeoutNanos() {
        return connectTimeoutNanos;
    }

    /** Time without any packet from the peer after which the connection fails; 0 disables it. */
    public long idleTimeoutNanos() {
        return idleTimeoutNanos;
    }

    /** Time without any packet sent after which a keep-alive STATE is sent; 0 disables it. */
    public long keepAliveIntervalNanos() {
        return keepAliveIntervalNanos;
    }

    /** Longest time an acknowledgement is held back waiting for a second packet; 0 acks at once. */
    public long delayedAckTimeoutNanos() {
        return delayedAckTimeoutNanos;
    }

    /**
     * Time {@code close()} waits for the peer's FIN once ours was acknowledged before resetting, in
     * nanoseconds.
     */
    public long closeTimeoutNanos() {
        return closeTimeoutNanos;
    }

    /** The allocator of every buffer the connection creates. */
    public ByteBufAllocator allocator() {
        return allocator;
    }

    @Override
    public String toString() {
        return "UtpConfig{packetSize=" + packetSize + ", sendBufferSize=" + sendBufferSize
                + ", sendBufferMax=" + sendBufferMax + ", receiveBufferSize=" + receiveBufferSize
                + ", receiveBufferMax=" + receiveBufferMax + ", targetDelay=" + Duration.ofNanos(targetDelayNanos)
                + ", congestionControl=" + congestionControl + ", minRto=" + Duration.ofNanos(minRtoNanos)
                + ", maxRto=" + Duration.ofNanos(maxRtoNanos) + ", maxRetransmits=" + maxRetransmits
                + ", connectTimeout=" + Duration.ofNanos(connectTimeoutNanos)
                + ", idleTimeout=" + Duration.ofNanos(idleTimeoutNanos)
                + ", keepAliveInterval=" + Duration.ofNanos(keepAliveIntervalNanos)
                + ", delayedAckTimeout=" + Duration.ofNanos(delayedAckTimeoutNanos)
                + ", closeTimeout=" + Duration.ofNanos(closeTimeoutNanos) + '}';
    }

    /** Builds a {@link UtpConfig}; each setter validates its argument immediately. */
    public static final class Builder {
        private static final Duration MAX_LONG_TIMEOUT = Duration.ofHours(24);
        private static final Duration MAX_SHORT_TIMEOUT = Duration.ofMinutes(10);

        private int packetSize = 1400;
        private int sendBufferSize = 4 * 1024 * 1024;
        private int receiveBufferSize = 4 * 1024 * 1024;
        private boolean sendBufferSizeSet;
        private boolean receiveBufferSizeSet;
        private int sendBufferMax = -1; // the default: DEFAULT_BUFFER_MAX, or the size if only that was set
        private int receiveBufferMax = -1;
        private long targetDelayNanos = Duration.ofMillis(60).toNanos();
        private String congestionControl = CongestionControls.LEDBAT;
        private long minRtoNanos = Duration.ofMillis(500).toNanos();
        /**
         * Default cap of the backed-off RTO. TCP's 60 s (RFC 6298, 2.5) is meant for a stream that may
         * wait minutes; uTP's reference implementation gives up after four doublings of a 1 s RTO,
         * waiting 16 s at most. 10 s keeps retransmissions several times inside the default idle
         * timeout and resumes a transfer within 10 s of a long outage ending.
         */
        static final long DEFAULT_MAX_RTO_NANOS = Duration.ofSeconds(10).toNanos();

        private long maxRtoNanos = -1; // the default: DEFAULT_MAX_RTO_NANOS, or minRto if larger
        private int maxRetransmits = 10;
        private long connectTimeoutNanos = Duration.ofSeconds(20).toNanos();
        private long idleTimeoutNanos = Duration.ofSeconds(60).toNanos();
        private long keepAliveIntervalNanos = Duration.ofSeconds(15).toNanos();
        private long delayedAckTimeoutNanos = Duration.ofMillis(20).toNanos();
        private long closeTimeoutNanos = Duration.ofSeconds(30).toNanos();
        private ByteBufAllocator allocator = ByteBufAllocator.DEFAULT;

        private Builder() {
        }

        private Builder(UtpConfig c) {
            packetSize = c.packetSize;
            sendBufferSize = c.sendBufferSize;
            receiveBufferSize = c.receiveBufferSize;
            sendBufferSizeSet = c.sendBufferSizeSet;
            receiveBufferSizeSet = c.receiveBufferSizeSet;
            sendBufferMax = c.sendBufferMaxSet ? c.sendBufferMax : -1;
            receiveBufferMax = c.receiveBufferMaxSet ? c.receiveBufferMax : -1;
            targetDelayNanos = c.targetDelayNanos;
            congestionControl = c.congestionControl;
            minRtoNanos = c.minRtoNanos;
            maxRtoNanos = c.maxRtoSet ? c.maxRtoNanos : -1;
            maxRetransmits = c.maxRetransmits;
            connectTimeoutNanos = c.connectTimeoutNanos;
            idleTimeoutNanos = c.idleTimeoutNanos;
            keepAliveIntervalNanos = c.keepAliveIntervalNanos;
            delayedAckTimeoutNanos = c.delayedAckTimeoutNanos;
            closeTimeoutNanos = c.closeTimeoutNanos;
            allocator = c.allocator;
        }

        /** Largest packet, header included; pick it below the path MTU minus IP and UDP headers. */
        public Builder packetSize(int bytes) {
            packetSize = checkRange("packetSize", bytes, MIN_PACKET_SIZE, MAX_PACKET_SIZE);
            return this;
        }

        /**
         * Bytes written but not yet acknowledged that the connection accepts. Without a
         * {@link #sendBufferMax} this fixes the size (no growth), as {@code SO_SNDBUF} does for TCP.
         */
        public Builder sendBufferSize(int bytes) {
            sendBufferSize = checkRange("sendBufferSize", bytes, MIN_BUFFER_SIZE, MAX_BUFFER_SIZE);
            sendBufferSizeSet = true;
            return this;
        }

        /**
         * The most the send buffer grows to as the congestion window grows; below the default size,
         * with no size set, it is the size too.
         */
        public Builder sendBufferMax(int bytes) {
            sendBufferMax = checkRange("sendBufferMax", bytes, MIN_BUFFER_SIZE, MAX_BUFFER_SIZE);
            return this;
        }

        /**
         * Memory that received data may hold (the advertised window is what is free of it, in payload
         * bytes). Without a {@link #receiveBufferMax} this fixes the size (no growth), as
         * {@code SO_RCVBUF} does for TCP.
         */
        public Builder receiveBufferSize(int bytes) {
            receiveBufferSize = checkRange("receiveBufferSize", bytes, MIN_BUFFER_SIZE, MAX_BUFFER_SIZE);
            receiveBufferSizeSet = true;
            return this;
        }

        /**
         * The most the receive buffer grows to while the application keeps up with a fast flow; below
         * the default size, with no size set, it is the size too.
         */
        public Builder receiveBufferMax(int bytes) {
            receiveBufferMax = checkRange("receiveBufferMax", bytes, MIN_BUFFER_SIZE, MAX_BUFFER_SIZE);
            return this;
        }

        /** LEDBAT's queuing-delay target. */
        public Builder targetDelay(Duration value) {
            targetDelayNanos = checkDuration("targetDelay", value, Duration.ofMillis(1), Duration.ofMillis(100));
            return this;
        }

        /** The congestion controller, by registered name. */
        public Builder congestionControl(String name) {
            if (!CongestionControls.isRegistered(name)) {
                throw new IllegalArgumentException("congestionControl must be one of " + CongestionControls.names()
                        + ", was '" + name + "'");
            }
            congestionControl = name;
            return this;
        }

        /** Lower bound of the retransmission timeout (BEP 29 and libutp use 500 ms). */
        public Builder minRto(Duration value) {
            minRtoNanos = checkDuration("minRto", value, Duration.ofMillis(1), Duration.ofSeconds(60));
            return this;
        }

        /**
         * Upper bound of the backed-off retransmission timeout (default 10 s, or {@code minRto} if
         * that is larger); a gracefully closed connection lingers for twice this.
         */
        public Builder maxRto(Duration value) {
            maxRtoNanos = checkDuration("maxRto", value, Duration.ofMillis(1), MAX_SHORT_TIMEOUT);
            return this;
        }

        /** Consecutive timeouts without progress after which the connection fails. */
        public Builder maxRetransmits(int count) {
            maxRetransmits = checkRange("maxRetransmits", count, 1, 100);
            return this;
        }

        /** Time allowed for the handshake. */
        public Builder connectTimeout(Duration value) {
            connectTimeoutNanos = checkDuration("connectTimeout", value, Duration.ofMillis(1), MAX_SHORT_TIMEOUT);
            return this;
        }

        /** Silence from the peer after which the connection fails; {@link Duration#ZERO} disables it. */
        public Builder idleTimeout(Duration value) {
            idleTimeoutNanos = checkDuration("idleTimeout", value, Duration.ZERO, MAX_LONG_TIMEOUT);
            return this;
        }

        /** Own silence after which a keep-alive is sent; {@link Duration#ZERO} disables it. */
        public Builder keepAliveInterval(Duration value) {
            keepAliveIntervalNanos = checkDuration("keepAliveInterval", value, Duration.ZERO, MAX_LONG_TIMEOUT);
            return this;
        }

        /** Longest delay of an acknowledgement; {@link Duration#ZERO} acknowledges every packet at once. */
        public Builder delayedAckTimeout(Duration value) {
            delayedAckTimeoutNanos = checkDuration("delayedAckTimeout", value, Duration.ZERO, Duration.ofMillis(500));
            return this;
        }

        /** Time a graceful close waits for the peer's FIN, once ours is acknowledged, before resetting. */
        public Builder closeTimeout(Duration value) {
            closeTimeoutNanos = checkDuration("closeTimeout", value, Duration.ofMillis(1), MAX_SHORT_TIMEOUT);
            return this;
        }

        /** The allocator of every buffer the connection creates. */
        public Builder allocator(ByteBufAllocator value) {
            allocator = Objects.requireNonNull(value, "allocator must not be null");
            return this;
        }

        /**
         * Builds the configuration, checking the constraints between fields.
         *
         * @throws IllegalArgumentException if {@code maxRto < minRto} or the receive buffer is smaller
         *                                  than one packet
         */
        public UtpConfig build() {
            if (maxRtoNanos >= 0 && maxRtoNanos < minRtoNanos) {
                throw new IllegalArgumentException("maxRto must be in [minRto=" + Duration.ofNanos(minRtoNanos)
                        + ", " + MAX_SHORT_TIMEOUT + "], was " + Duration.ofNanos(maxRtoNanos));
            }
            int receiveBufferSize = startSize(this.receiveBufferSize, receiveBufferSizeSet, receiveBufferMax);
            int sendBufferSize = startSize(this.sendBufferSize, sendBufferSizeSet, sendBufferMax);
            if (receiveBufferSize < packetSize) {
                throw new IllegalArgumentException("receiveBufferSize must be in [packetSize=" + packetSize + ", "
                        + MAX_BUFFER_SIZE + "], was " + receiveBufferSize);
            }
            if (sendBufferMax >= 0 && sendBufferMax < sendBufferSize) {
                throw new IllegalArgumentException("sendBufferMax must be in [sendBufferSize=" + sendBufferSize + ", "
                        + MAX_BUFFER_SIZE + "], was " + sendBufferMax);
            }
            if (receiveBufferMax >= 0 && receiveBufferMax < receiveBufferSize) {
                throw new IllegalArgumentException("receiveBufferMax must be in [receiveBufferSize=" + receiveBufferSize
                        + ", " + MAX_BUFFER_SIZE + "], was " + receiveBufferMax);
            }
            return new UtpConfig(this);
        }

        /** A buffer's size at the start: as set; else the default, or the maximum if that is less. */
        static int startSize(int size, boolean sizeSet, int max) {
            return !sizeSet && max >= 0 && max < size ? max : size;
        }

        /** A buffer's maximum: as set; else its size if the size was set (fixed); else the default. */
        static int resolveMax(int max, int size, boolean sizeSet) {
            if (max >= 0) {
                return max;
            }
            return sizeSet ? size : Math.max(DEFAULT_BUFFER_MAX, size);
        }

        private static int checkRange(String field, int value, int min, int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(field + " must be in [" + min + ", " + max + "], was " + value);
            }
            return value;
        }

        private static long checkDuration(String field, Duration value, Duration min, Duration max) {
            if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
                throw new IllegalArgumentException(field + " must be in [" + min + ", " + max + "], was " + value);
            }
            return value.toNanos();
        }
    }
}
