package io.ferry.transport.quic;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.quic.QuicCodecBuilder;
import io.netty.handler.codec.quic.QuicCongestionControlAlgorithm;
import io.netty.handler.codec.quic.QuicSslContext;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The options of one QUIC connection or listener, validated once, and what they make of Netty's codec
 * builders: congestion control, flow-control windows, UDP payload size with path-MTU discovery, idle timeout
 * and TLS. The windows default to what a long fat path needs (8 MiB per stream, 24 MiB per connection;
 * quiche grows a stream's window up to 16 MiB as the application keeps up), never the codec's 0.
 */
final class QuicSettings {

    /** Netty's own options, applied to each channel's config. */
    static final Set<ChannelOption<?>> CHANNEL_OPTIONS = Set.of(
            ChannelOption.AUTO_READ, ChannelOption.AUTO_CLOSE, ChannelOption.ALLOW_HALF_CLOSURE,
            ChannelOption.WRITE_BUFFER_WATER_MARK, ChannelOption.ALLOCATOR, ChannelOption.MESSAGE_SIZE_ESTIMATOR,
            ChannelOption.WRITE_SPIN_COUNT, ChannelOption.MAX_MESSAGES_PER_WRITE, FerryChannelOption.LINGER);
    /** Options that shape the QUIC connection itself. */
    static final Set<ChannelOption<?>> PROTOCOL_OPTIONS = Set.of(
            FerryChannelOption.CONGESTION_CONTROL, FerryChannelOption.RECEIVE_BUFFER_SIZE, FerryChannelOption.PACKET_SIZE,
            FerryChannelOption.CONNECT_TIMEOUT, QuicOption.IDLE_TIMEOUT, QuicOption.SERVER_TLS, QuicOption.CLIENT_TLS,
            QuicOption.PIN, QuicOption.GSO_SEGMENTS, FerryChannelOption.SHARED_CONNECTION);
    /** Data streams one connection may carry: as many as a striped connection has members (STREAMS' largest). */
    static final int MAX_DATA_STREAMS = 64;
    /**
     * The connection's window in stream windows: room for a striped connection's streams to fill four windows
     * between them (a plain connection's one stream is held to its own window anyway), up to
     * {@link #MAX_CONNECTION_WINDOW}.
     */
    static final long CONNECTION_WINDOW_STREAMS = 4;
    /**
     * quiche's own ceiling for a connection's window (its {@code max_connection_window}, 24 MiB): an initial
     * window above it let a striped connection's close stall behind a slow reader in the conformance suite.
     */
    static final long MAX_CONNECTION_WINDOW = 24 << 20;

    static final int DEFAULT_STREAM_WINDOW = 8 << 20;
    /** 1500-byte Ethernet less IPv4 and UDP headers; path-MTU discovery (RFC 8899) starts from 1200 and probes up to it. */
    static final int DEFAULT_PAYLOAD = 1472;
    static final int MIN_PAYLOAD = 1200;
    static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);
    static final int DEFAULT_GSO_SEGMENTS = 16;
    /** A receipt stream carries 8-byte counts; its window need not be large. */
    private static final int RECEIPT_WINDOW = 64 << 10;

    final QuicCongestionControlAlgorithm congestionControl;
    final int streamWindow;
    final int payload;
    final Duration idleTimeout;
    final Duration connectTimeout;
    final QuicSslContext serverTls;
    final QuicSslContext clientTls;
    final String pin;
    final int gsoSegments;
    /** The group whose connection a client shares, or null for a connection of its own. */
    final String sharedConnection;
    private final ChannelOptions options;

    private QuicSettings(ChannelOptions options) {
        this.options = options;
        this.congestionControl = congestionControl(options.get(FerryChannelOption.CONGESTION_CONTROL).orElse("cubic"));
        this.streamWindow = options.get(FerryChannelOption.RECEIVE_BUFFER_SIZE).orElse(DEFAULT_STREAM_WINDOW);
        int p = options.get(FerryChannelOption.PACKET_SIZE).orElse(DEFAULT_PAYLOAD);
        if (p < MIN_PAYLOAD) {
            throw new IllegalArgumentException("QUIC needs a PACKET_SIZE of at least " + MIN_PAYLOAD
                    + " bytes (RFC 9000 section 14: every path must carry 1200-byte datagrams), got " + p);
        }
        this.payload = p;
        this.idleTimeout = options.get(QuicOption.IDLE_TIMEOUT).orElse(DEFAULT_IDLE_TIMEOUT);
        this.connectTimeout = options.get(FerryChannelOption.CONNECT_TIMEOUT).orElse(null);
        this.serverTls = options.get(QuicOption.SERVER_TLS).orElse(null);
        this.clientTls = options.get(QuicOption.CLIENT_TLS).orElse(null);
        this.pin = options.get(QuicOption.PIN).orElse(null);
        if (clientTls != null && pin != null) {
            throw new IllegalArgumentException("QUIC_PIN and QUIC_CLIENT_TLS both say whom a client trusts; give one");
        }
        if (serverTls != null && !serverTls.isServer()) {
            throw new IllegalArgumentException("QUIC_SERVER_TLS needs a server context (QuicSslContextBuilder.forServer)");
        }
        if (clientTls != null && !clientTls.isClient()) {
            throw new IllegalArgumentException("QUIC_CLIENT_TLS needs a client context (QuicSslContextBuilder.forClient)");
        }
        this.gsoSegments = options.get(QuicOption.GSO_SEGMENTS).orElse(DEFAULT_GSO_SEGMENTS);
        this.sharedConnection = options.get(FerryChannelOption.SHARED_CONNECTION).orElse(null);
    }

    /** The settings {@code options} ask for; they must be supported ({@link #supported()}). */
    static QuicSettings of(ChannelOptions options) {
        options.requireSupported(QuicTransport.NAME, supported());
        return new QuicSettings(options);
    }

    static Set<ChannelOption<?>> supported() {
        Set<ChannelOption<?>> all = new LinkedHashSet<>(CHANNEL_OPTIONS);
        all.addAll(PROTOCOL_OPTIONS);
        return all;
    }

    private static QuicCongestionControlAlgorithm congestionControl(String name) {
        switch (name.toLowerCase(Locale.ROOT)) {
            case "reno":
                return QuicCongestionControlAlgorithm.RENO;
            case "cubic":
                return QuicCongestionControlAlgorithm.CUBIC;
            case "bbr":
                return QuicCongestionControlAlgorithm.BBR;
            default:
                throw new IllegalArgumentException("QUIC's congestion control is reno, cubic or bbr (quiche's), got '" + name + "'");
        }
    }

    /** The codec settings both ends share; {@code server} tells which end opens the data stream. */
    <B extends QuicCodecBuilder<B>> B configure(B builder, boolean server) {
        return builder.congestionControlAlgorithm(congestionControl)
                .maxIdleTimeout(idleTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .maxSendUdpPayloadSize(payload)
                .maxRecvUdpPayloadSize(65_527)
                .discoverPmtu(true)
                .initialMaxData(Math.min(CONNECTION_WINDOW_STREAMS * streamWindow, MAX_CONNECTION_WINDOW) + 4 * RECEIPT_WINDOW)
                .initialMaxStreamDataBidirectionalLocal(streamWindow)
                .initialMaxStreamDataBidirectionalRemote(streamWindow)
                .initialMaxStreamDataUnidirectional(RECEIPT_WINDOW)
                // the client opens the data streams (one, or a striped connection's members); each end one receipt stream for each
                .initialMaxStreamsBidirectional(server ? MAX_DATA_STREAMS : 0)
                .initialMaxStreamsUnidirectional(MAX_DATA_STREAMS)
                .activeMigration(false);
    }

    /** Applies the Netty-level options to a channel's config (a rejected one throws, naming it). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    void applyTo(Channel channel) {
        for (Map.Entry<ChannelOption<?>, Object> e : options.asMap().entrySet()) {
            if (CHANNEL_OPTIONS.contains(e.getKey()) && !channel.config().setOption((ChannelOption) e.getKey(), e.getValue())) {
                throw new IllegalArgumentException("QUIC channel rejected option " + e.getKey().name());
            }
        }
    }
}
