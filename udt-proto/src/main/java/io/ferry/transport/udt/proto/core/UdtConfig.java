package io.ferry.transport.udt.proto.core;

import io.ferry.transport.udt.proto.cc.UdtDaimd;
import io.ferry.transport.ledbat.cc.CongestionControlFactory;
import io.ferry.transport.udt.proto.wire.UdtPacket;
import io.netty.buffer.ByteBufAllocator;

import java.util.Objects;

/**
 * What one UDT connection is configured with. Defaults are UDT4 4.11's: MSS 1500, flow window 25,600
 * packets, receive buffer 8,192 packets, send buffer 8,192 packets, a 3 s connect timeout and a peer
 * declared dead after 16 silent expiries and 5 s; {@link UdtDaimd} rate control.
 *
 * @param mss                   maximum segment size, the whole IP datagram (UDT4's {@code UDT_MSS}), at least 76
 * @param flowWindowPackets     the largest flow window this side allows (UDT4's {@code UDT_FC})
 * @param receiveBufferPackets  packets the receive side holds, delivered but not consumed included ({@code UDT_RCVBUF} / payload)
 * @param sendBufferPackets     packets the send side holds before it is not writable ({@code UDT_SNDBUF} / payload)
 * @param messageMode           a message socket ({@code SOCK_DGRAM}): messages kept whole; else a byte stream
 * @param inOrder               message mode: messages delivered in the order sent
 * @param ipv6                  whether the socket is IPv6 (the payload leaves room for the larger header)
 * @param connectTimeoutNanos   how long a connect or rendezvous waits for the peer
 * @param peerTimeoutNanos      silence after which the peer is dead, once more than 4 expiries have passed (UDT4 waits for 16; a live Ferry peer speaks at least once a second)
 * @param congestionControl     the rate or window control of the sending side
 * @param allocator             where packets are allocated
 */
public record UdtConfig(int mss, int flowWindowPackets, int receiveBufferPackets, int sendBufferPackets,
                        boolean messageMode, boolean inOrder, boolean ipv6, long connectTimeoutNanos,
                        long peerTimeoutNanos, CongestionControlFactory congestionControl, ByteBufAllocator allocator) {
    /** UDT4's default MSS. */
    public static final int DEFAULT_MSS = 1500;
    /** The smallest MSS accepted: headers plus 32 bytes of payload. */
    public static final int MIN_MSS = 48 + UdtPacket.HEADER_BYTES + 32;

    /** Validates. */
    public UdtConfig {
        if (mss < MIN_MSS || mss > 65_535) {
            throw new IllegalArgumentException("mss must be in [" + MIN_MSS + ", 65535], was " + mss);
        }
        if (flowWindowPackets < 2 || receiveBufferPackets < 32 || sendBufferPackets < 2) {
            throw new IllegalArgumentException("flow window >= 2, receive buffer >= 32 and send buffer >= 2 packets; were "
                    + flowWindowPackets + ", " + receiveBufferPackets + ", " + sendBufferPackets);
        }
        if (connectTimeoutNanos <= 0 || peerTimeoutNanos <= 0) {
            throw new IllegalArgumentException("timeouts must be positive");
        }
        Objects.requireNonNull(congestionControl, "congestionControl");
        Objects.requireNonNull(allocator, "allocator");
    }

    /** UDT4's defaults: a byte stream over IPv4. */
    public static UdtConfig defaults() {
        return new UdtConfig(DEFAULT_MSS, 25_600, 8_192, 8_192, false, true, false, 3_000_000_000L, 5_000_000_000L,
                UdtDaimd::new, ByteBufAllocator.DEFAULT);
    }

    /** Payload bytes of one data packet: the MSS less the IP, UDP and UDT headers. */
    public int payloadBytes() {
        return mss - (ipv6 ? 48 : UdtPacket.IP_UDP_HEADER_BYTES) - UdtPacket.HEADER_BYTES;
    }

    /** The flow window this side announces in its handshake: UDT4 sends the smaller of the window and the receive buffer. */
    public int announcedFlowWindow() {
        return Math.min(flowWindowPackets, receiveBufferPackets);
    }

    public UdtConfig withMss(int value) {
        return new UdtConfig(value, flowWindowPackets, receiveBufferPackets, sendBufferPackets, messageMode, inOrder, ipv6,
                connectTimeoutNanos, peerTimeoutNanos, congestionControl, allocator);
    }

    public UdtConfig withBuffers(int flowWindow, int receivePackets, int sendPackets) {
        return new UdtConfig(mss, flowWindow, receivePackets, sendPackets, messageMode, inOrder, ipv6,
                connectTimeoutNanos, peerTimeoutNanos, congestionControl, allocator);
    }

    public UdtConfig withMessageMode(boolean value, boolean ordered) {
        return new UdtConfig(mss, flowWindowPackets, receiveBufferPackets, sendBufferPackets, value, ordered, ipv6,
                connectTimeoutNanos, peerTimeoutNanos, congestionControl, allocator);
    }

    public UdtConfig withIpv6(boolean value) {
        return new UdtConfig(mss, flowWindowPackets, receiveBufferPackets, sendBufferPackets, messageMode, inOrder, value,
                connectTimeoutNanos, peerTimeoutNanos, congestionControl, allocator);
    }

    public UdtConfig withTimeouts(long connectNanos, long peerNanos) {
        return new UdtConfig(mss, flowWindowPackets, receiveBufferPackets, sendBufferPackets, messageMode, inOrder, ipv6,
                connectNanos, peerNanos, congestionControl, allocator);
    }

    public UdtConfig withCongestionControl(CongestionControlFactory value) {
        return new UdtConfig(mss, flowWindowPackets, receiveBufferPackets, sendBufferPackets, messageMode, inOrder, ipv6,
                connectTimeoutNanos, peerTimeoutNanos, value, allocator);
    }

    public UdtConfig withAllocator(ByteBufAllocator value) {
        return new UdtConfig(mss, flowWindowPackets, receiveBufferPackets, sendBufferPackets, messageMode, inOrder, ipv6,
                connectTimeoutNanos, peerTimeoutNanos, congestionControl, value);
    }
}
