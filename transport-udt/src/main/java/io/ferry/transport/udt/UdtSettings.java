package io.ferry.transport.udt;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.ledbat.cc.CongestionControlFactory;
import io.ferry.transport.ledbat.cc.CongestionControls;
import io.ferry.transport.ledbat.cc.CongestionParameters;
import io.ferry.transport.udt.proto.cc.FerryRateControl;
import io.ferry.transport.udt.proto.cc.UdtDaimd;
import io.ferry.transport.udt.proto.core.UdtConfig;
import io.netty.buffer.ByteBufAllocator;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.UnsupportedOptionException;
import io.ferry.transport.spi.InterfaceMtu;
import io.netty.channel.ChannelOption;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;

/**
 * The UDT settings of one connection or listener, validated up front and turned into the protocol
 * core's {@link UdtConfig} (and the UDP socket's buffers) when the connection is made.
 *
 * <p>Defaults are sized for a 1 Gbit/s path with 200 ms RTT (a bandwidth-delay product of 25 MB), the
 * long fat network UDT is for, instead of small fixed buffers: 32 MiB UDT buffers each way, a flow
 * window large enough for them, 4 MiB UDP socket buffers (the kernel caps them at
 * {@code net.core.rmem_max}/{@code wmem_max}), MSS 1500 so datagrams never fragment on Ethernet, and a
 * 30 s linger ({@link FerryChannelOption#DEFAULT_LINGER}). UDT allocates its buffers as data arrives, so an idle connection with big buffers costs
 * little (about 1.5 MB of loss lists and windows).
 */
final class UdtSettings {

    static final int DEFAULT_MSS = 1500;
    /** The smallest MSS UDT accepts. */
    static final int MIN_MSS = 76;
    static final int DEFAULT_UDT_BUFFER = 32 << 20;
    static final int DEFAULT_UDP_BUFFER = 4 << 20;
    static final int DEFAULT_FLOW_WINDOW = 25_600; // UDT4's own default, in packets
    static final int DEFAULT_MAX_MESSAGE = 64 << 10;
    /**
     * Silence after which a connection's peer is dead (the core's peer timeout). The handshake's own
     * limit is the channel's connect timeout ({@code CONNECT_TIMEOUT_MILLIS}), as for every Ferry transport.
     */
    static final long PEER_TIMEOUT_NANOS = 10_000_000_000L;
    /** IP and UDP headers inside UDT's MSS. */
    static final int HEADERS = 28;

    /** UDT4's own congestion control: rate-based DAIMD, which lowers the rate on every loss report. */
    static final String NATIVE_CC = UdtDaimd.NAME;
    /** Ferry's rate control ({@link FerryRateControl}): paced by queuing delay, not random loss. */
    static final String FERRY_CC = FerryRateControl.NAME;

    static final Set<ChannelOption<?>> UDT_OPTIONS = Set.of(
            UdtChannelOption.UDT_SEND_BUFFER, UdtChannelOption.UDT_RECEIVE_BUFFER, UdtChannelOption.UDP_SEND_BUFFER,
            UdtChannelOption.UDP_RECEIVE_BUFFER, UdtChannelOption.MSS, UdtChannelOption.FLOW_WINDOW,
            UdtChannelOption.MAX_BANDWIDTH, FerryChannelOption.LINGER, UdtChannelOption.MESSAGE_MODE,
            UdtChannelOption.MAX_MESSAGE_SIZE, UdtChannelOption.RAW_STREAM, UdtChannelOption.RENDEZVOUS,
            UdtChannelOption.BIND_ADDRESS);

    static final Set<ChannelOption<?>> COMMON_OPTIONS = Set.of(
            FerryChannelOption.SEND_BUFFER_SIZE, FerryChannelOption.RECEIVE_BUFFER_SIZE, FerryChannelOption.PACKET_SIZE,
            FerryChannelOption.PACING_RATE, FerryChannelOption.CONGESTION_CONTROL, FerryChannelOption.CONNECT_TIMEOUT);

    /** Netty options the UDT channels honour as Netty defines them. */
    static final Set<ChannelOption<?>> NETTY_OPTIONS = Set.of(
            ChannelOption.CONNECT_TIMEOUT_MILLIS, ChannelOption.AUTO_READ, ChannelOption.AUTO_CLOSE,
            ChannelOption.ALLOW_HALF_CLOSURE, ChannelOption.WRITE_BUFFER_WATER_MARK, ChannelOption.ALLOCATOR,
            ChannelOption.RCVBUF_ALLOCATOR, ChannelOption.MESSAGE_SIZE_ESTIMATOR, ChannelOption.WRITE_SPIN_COUNT,
            ChannelOption.SO_BACKLOG, ChannelOption.SO_REUSEADDR);

    final int mss;
    final int udtSendBuffer;
    final int udtReceiveBuffer;
    final int udpSendBuffer;
    final int udpReceiveBuffer;
    final int flowWindow;
    final long maxBandwidth;
    final Duration linger;
    final StreamMode mode;
    final int maxMessageSize;
    final boolean rendezvous;
    final InetSocketAddress bindAddress;
    final boolean reuseAddress;
    final int backlog;
    /** {@link #NATIVE_CC} or {@link #FERRY_CC}. */
    final String congestionControl;
    /** The Netty options to set on the channel's config. */
    final Map<ChannelOption<?>, Object> nettyOptions;

    /** How bytes travel over the UDT socket. */
    enum StreamMode {
        /** UDT stream with Ferry's end-of-stream frames: half-close works (the default). */
        FRAMED,
        /** A plain UDT stream: interoperable with any UDT peer; no half-close. */
        RAW,
        /** UDT messages: one buffer written, one buffer read. */
        MESSAGE
    }

    private UdtSettings(ChannelOptions options) {
        int packetMss = options.get(FerryChannelOption.PACKET_SIZE).map(p -> p + HEADERS).orElse(DEFAULT_MSS);
        this.mss = options.get(UdtChannelOption.MSS).orElse(packetMss);
        requireRange("MSS", mss, MIN_MSS, 65_535);
        this.udtSendBuffer = options.get(UdtChannelOption.UDT_SEND_BUFFER)
                .orElse(options.get(FerryChannelOption.SEND_BUFFER_SIZE).orElse(DEFAULT_UDT_BUFFER));
        this.udtReceiveBuffer = options.get(UdtChannelOption.UDT_RECEIVE_BUFFER)
                .orElse(options.get(FerryChannelOption.RECEIVE_BUFFER_SIZE).orElse(DEFAULT_UDT_BUFFER));
        requireRange("UDT_SEND_BUFFER", udtSendBuffer, 1, Integer.MAX_VALUE);
        requireRange("UDT_RECEIVE_BUFFER", udtReceiveBuffer, 1, Integer.MAX_VALUE);
        this.udpSendBuffer = options.get(UdtChannelOption.UDP_SEND_BUFFER).orElse(DEFAULT_UDP_BUFFER);
        this.udpReceiveBuffer = options.get(UdtChannelOption.UDP_RECEIVE_BUFFER).orElse(DEFAULT_UDP_BUFFER);
        requireRange("UDP_SEND_BUFFER", udpSendBuffer, 1, Integer.MAX_VALUE);
        requireRange("UDP_RECEIVE_BUFFER", udpReceiveBuffer, 1, Integer.MAX_VALUE);
        // UDT clamps its receive buffer to the flow window, so the default window covers the buffer.
        int packetsForBuffer = (int) Math.min(Integer.MAX_VALUE, ((long) udtReceiveBuffer + mss - HEADERS - 1) / (mss - HEADERS));
        this.flowWindow = options.get(UdtChannelOption.FLOW_WINDOW).orElse(Math.max(DEFAULT_FLOW_WINDOW, packetsForBuffer));
        requireRange("FLOW_WINDOW", flowWindow, 2, Integer.MAX_VALUE);
        this.maxBandwidth = options.get(UdtChannelOption.MAX_BANDWIDTH)
                .orElse(options.get(FerryChannelOption.PACING_RATE).orElse(-1L));
        if (maxBandwidth == 0 || maxBandwidth < -1) {
            throw new IllegalArgumentException("MAX_BANDWIDTH must be a positive number of bytes per second or -1 for none, got " + maxBandwidth);
        }
        this.linger = options.get(FerryChannelOption.LINGER).orElse(FerryChannelOption.DEFAULT_LINGER);
        FerryChannelOption.LINGER.validate(linger);
        boolean message = options.get(UdtChannelOption.MESSAGE_MODE).orElse(false);
        boolean raw = options.get(UdtChannelOption.RAW_STREAM).orElse(false);
        if (message && raw) {
            throw new IllegalArgumentException("MESSAGE_MODE and RAW_STREAM exclude each other: RAW_STREAM is a stream-mode setting");
        }
        this.mode = message ? StreamMode.MESSAGE : raw ? StreamMode.RAW : StreamMode.FRAMED;
        this.maxMessageSize = options.get(UdtChannelOption.MAX_MESSAGE_SIZE).orElse(Math.min(DEFAULT_MAX_MESSAGE, udtSendBuffer));
        // UDT refuses a message larger than its send buffer.
        requireRange("MAX_MESSAGE_SIZE", maxMessageSize, 1, mode == StreamMode.MESSAGE ? udtSendBuffer : Integer.MAX_VALUE);
        this.rendezvous = options.get(UdtChannelOption.RENDEZVOUS).orElse(false);
        this.bindAddress = options.get(UdtChannelOption.BIND_ADDRESS).orElse(null);
        if (rendezvous && (bindAddress == null || bindAddress.getPort() == 0)) {
            throw new IllegalArgumentException("RENDEZVOUS needs BIND_ADDRESS with the port the peer connects to");
        }
        this.reuseAddress = options.get(ChannelOption.SO_REUSEADDR).orElse(true);
        this.backlog = options.get(ChannelOption.SO_BACKLOG).orElse(1024);
        String asked = options.get(FerryChannelOption.CONGESTION_CONTROL).orElse(FERRY_CC);
        if (!CongestionControls.isRegistered(asked)) {
            throw new UnsupportedOptionException("UDT's congestion control '" + asked + "' is not available; choose '" + FERRY_CC
                    + "' (Ferry's rate control: paced by queuing delay, random loss does not slow it), '" + NATIVE_CC
                    + "' (UDT4's own DAIMD) or another of " + CongestionControls.names());
        }
        this.congestionControl = asked;
        Map<ChannelOption<?>, Object> netty = new LinkedHashMap<>();
        options.asMap().forEach((option, value) -> {
            if (NETTY_OPTIONS.contains(option) && option != ChannelOption.SO_BACKLOG && option != ChannelOption.SO_REUSEADDR) {
                netty.put(option, value);
            }
        });
        options.get(FerryChannelOption.CONNECT_TIMEOUT)
                .ifPresent(d -> netty.put(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, d.toMillis())));
        this.nettyOptions = Collections.unmodifiableMap(netty);
    }

    /** Validates options (already checked against the supported set) into settings. */
    static UdtSettings of(ChannelOptions options) {
        return new UdtSettings(options);
    }

    /**
     * Settings for a connection to {@code remote}: an MSS above the MTU of the first hop towards it is
     * lowered to that MTU, so that no datagram is fragmented (one fragment lost loses the datagram; TCP
     * and {@code utp://} clamp their packets the same way). UDT negotiates the smaller MSS of the two
     * peers in its handshake, so the accepting side follows. Loopback peers keep the MSS asked for.
     */
    static UdtSettings forConnection(ChannelOptions options, InetSocketAddress remote) {
        return forConnection(options, remote, InterfaceMtu::towards);
    }

    static UdtSettings forConnection(ChannelOptions options, InetSocketAddress remote,
                                     Function<InetSocketAddress, OptionalInt> mtuLookup) {
        UdtSettings asked = of(options);
        OptionalInt payload = InterfaceMtu.largestUdpPayload(remote, mtuLookup);
        if (payload.isEmpty()) {
            return asked;
        }
        // UDT's MSS counts 28 bytes of IPv4 and UDP headers whatever the address family
        int fitted = payload.getAsInt() + InterfaceMtu.IPV4_UDP_HEADERS;
        if (fitted >= asked.mss || fitted < MIN_MSS) {
            return asked;
        }
        return of(options.toBuilder().set(UdtChannelOption.MSS, fitted).build());
    }

    boolean usesFerryRateControl() {
        return FERRY_CC.equals(congestionControl);
    }

    boolean isMessageMode() {
        return mode == StreamMode.MESSAGE;
    }

    /** Payload bytes per packet, as UDT4 counts its buffers: the MSS less 28 bytes of IP and UDP headers. */
    int bufferUnit() {
        return mss - HEADERS;
    }

    /** The send buffer in whole packets, as UDT4 keeps it. */
    int sendBufferPackets() {
        return Math.max(2, udtSendBuffer / bufferUnit());
    }

    /** The receive buffer in whole packets, clamped to the flow window as UDT4 clamps it. */
    int receiveBufferPackets() {
        return Math.max(32, Math.min(flowWindow, udtReceiveBuffer / bufferUnit()));
    }

    /** The rate or window control the sending side runs. */
    CongestionControlFactory congestionControlFactory() {
        if (FERRY_CC.equals(congestionControl)) {
            long ceiling = maxBandwidth;
            return p -> new FerryRateControl(p, ceiling);
        }
        String name = congestionControl;
        return (CongestionParameters p) -> CongestionControls.create(name, p);
    }

    /** The protocol core's configuration for a connection of this family. */
    UdtConfig protocol(boolean ipv6, ByteBufAllocator allocator) {
        return UdtConfig.defaults().withMss(mss).withBuffers(flowWindow, receiveBufferPackets(), sendBufferPackets())
                .withMessageMode(isMessageMode(), true).withIpv6(ipv6).withCongestionControl(congestionControlFactory())
                .withTimeouts(600_000_000_000L, PEER_TIMEOUT_NANOS).withAllocator(allocator);
    }

    private static void requireRange(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", got " + value);
        }
    }

}
