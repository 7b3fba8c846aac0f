package io.ferry.transport.tcp;

import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.channel.unix.RawUnixChannelOption;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Linux socket options that Netty's epoll transport has no constant for, set through its raw
 * socket-option support. Public so applications and tests can read them back from a channel.
 */
public final class TcpSocketOptions {

    private static final int SOL_SOCKET = 1;
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_CA_NAME_MAX = 16;

    /** {@code TCP_CONGESTION}: the connection's congestion-control algorithm, a NUL-padded name. */
    public static final RawUnixChannelOption TCP_CONGESTION =
            new RawUnixChannelOption("TCP_CONGESTION", IPPROTO_TCP, 13, TCP_CA_NAME_MAX);

    /** {@code TCP_MAXSEG}: the largest segment payload this socket sends. */
    public static final IntegerUnixChannelOption TCP_MAXSEG = new IntegerUnixChannelOption("TCP_MAXSEG", IPPROTO_TCP, 2);

    /** {@code SO_MAX_PACING_RATE}: the pacing-rate cap in bytes per second, as a 64-bit value. */
    public static final RawUnixChannelOption SO_MAX_PACING_RATE =
            new RawUnixChannelOption("SO_MAX_PACING_RATE", SOL_SOCKET, 47, 8);

    private TcpSocketOptions() {
    }

    /** The raw value of {@link #TCP_CONGESTION} for an algorithm name. */
    public static ByteBuffer congestionControlValue(String algorithm) {
        byte[] name = algorithm.getBytes(StandardCharsets.US_ASCII);
        if (name.length >= TCP_CA_NAME_MAX) {
            throw new IllegalArgumentException("TCP congestion-control names are shorter than " + TCP_CA_NAME_MAX + " bytes: '" + algorithm + "'");
        }
        ByteBuffer value = ByteBuffer.allocateDirect(TCP_CA_NAME_MAX);
        value.put(name);
        value.clear();
        return value;
    }

    /** Reads an algorithm name back from a {@link #TCP_CONGESTION} value. */
    public static String congestionControlName(ByteBuffer value) {
        ByteBuffer copy = value.duplicate();
        StringBuilder name = new StringBuilder();
        while (copy.hasRemaining()) {
            byte b = copy.get();
            if (b == 0) {
                break;
            }
            name.append((char) b);
        }
        return name.toString();
    }

    /** The raw value of {@link #SO_MAX_PACING_RATE} for a rate in bytes per second. */
    public static ByteBuffer pacingRateValue(long bytesPerSecond) {
        ByteBuffer value = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        value.putLong(0, bytesPerSecond);
        return value;
    }

    /** Reads a rate back from a {@link #SO_MAX_PACING_RATE} value. */
    public static long pacingRate(ByteBuffer value) {
        return value.duplicate().order(ByteOrder.nativeOrder()).getLong(value.position());
    }
}
