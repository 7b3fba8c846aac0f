package io.ferry.transport.udt.proto.wire;

import io.netty.buffer.ByteBuf;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The UDT4 handshake body (draft-gg-udt-03 section 2.2; UDT4 4.11 {@code CHandShake}): twelve
 * big-endian words, 48 bytes.
 *
 * <p>The request type is 1 for a client's request (first without, then with the listener's cookie),
 * -1 for a response, 0 for a rendezvous request and -2 for a rendezvous peer's answer once connected;
 * UDT4 answers a refused request with 1002. The peer address is the receiver's address as the sender
 * saw it: UDT4 stores each 32-bit word of it in host (little-endian) order before writing it big-endian,
 * so every 4 bytes of the address appear reversed on the wire; this codec does the same.
 *
 * @param version     UDT version, 4
 * @param socketType  {@link #STREAM} or {@link #DGRAM}
 * @param initialSeq  the initial sequence number (31 bits)
 * @param mss         the maximum segment size: the whole IP datagram, in bytes
 * @param flowWindow  the maximum flow window, in packets
 * @param requestType as above
 * @param socketId    the sender's socket id
 * @param cookie      the listener's SYN cookie, 0 before it is known
 * @param peerAddress the receiver's address as the sender saw it
 */
public record Handshake(int version, int socketType, int initialSeq, int mss, int flowWindow, int requestType,
                        int socketId, int cookie, InetAddress peerAddress) {
    /** Bytes of the body. */
    public static final int BYTES = 48;
    /** The only version spoken. */
    public static final int VERSION = 4;
    /** Socket type of a byte stream ({@code SOCK_STREAM}). */
    public static final int STREAM = 1;
    /** Socket type of a message socket ({@code SOCK_DGRAM}). */
    public static final int DGRAM = 2;
    /** Request type: a client's request. */
    public static final int REQUEST = 1;
    /** Request type: a rendezvous request. */
    public static final int RENDEZVOUS = 0;
    /** Request type: a response. */
    public static final int RESPONSE = -1;
    /** Request type: a connected rendezvous peer's answer. */
    public static final int RENDEZVOUS_CONFIRM = -2;
    /** Request type: UDT4's refusal (version or socket type differ, or the listener refused). */
    public static final int REFUSED = 1002;

    /** Returns this handshake with another request type and cookie. */
    public Handshake with(int newRequestType, int newCookie) {
        return new Handshake(version, socketType, initialSeq, mss, flowWindow, newRequestType, socketId, newCookie, peerAddress);
    }

    /** Writes the 48-byte body. */
    public void writeTo(ByteBuf out) {
        out.writeInt(version);
        out.writeInt(socketType);
        out.writeInt(initialSeq);
        out.writeInt(mss);
        out.writeInt(flowWindow);
        out.writeInt(requestType);
        out.writeInt(socketId);
        out.writeInt(cookie);
        byte[] raw = peerAddress == null ? new byte[4] : peerAddress.getAddress();
        byte[] words = new byte[16];
        System.arraycopy(raw, 0, words, 0, raw.length);
        for (int w = 0; w < 4; w++) {
            for (int i = 3; i >= 0; i--) {
                out.writeByte(words[4 * w + i]);
            }
        }
    }

    /**
     * Reads a handshake body at {@code offset}.
     *
     * @param ipv6 whether the address is IPv6 (UDT4 does not say; the socket's family does)
     * @throws IllegalArgumentException if fewer than 48 bytes are there
     */
    public static Handshake read(ByteBuf in, int offset, boolean ipv6) {
        if (in.writerIndex() - offset < BYTES) {
            throw new IllegalArgumentException("a UDT handshake body has 48 bytes, this one " + (in.writerIndex() - offset));
        }
        byte[] words = new byte[16];
        for (int w = 0; w < 4; w++) {
            for (int i = 0; i < 4; i++) {
                words[4 * w + 3 - i] = in.getByte(offset + 32 + 4 * w + i);
            }
        }
        InetAddress address;
        try {
            byte[] raw = ipv6 ? words : new byte[] {words[0], words[1], words[2], words[3]};
            address = InetAddress.getByAddress(raw);
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
        return new Handshake(in.getInt(offset), in.getInt(offset + 4), in.getInt(offset + 8), in.getInt(offset + 12),
                in.getInt(offset + 16), in.getInt(offset + 20), in.getInt(offset + 24), in.getInt(offset + 28), address);
    }

    /** Returns whether an address is IPv6 (not an IPv4 or IPv4-mapped one). */
    public static boolean isIpv6(InetAddress address) {
        return !(address instanceof Inet4Address);
    }
}
