package io.ferry.transport.udt.proto.core;

import io.ferry.transport.udt.proto.wire.Handshake;
import io.ferry.transport.udt.proto.wire.UdtPacket;
import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A UDT listener's stateless half (draft-gg-udt-03 section 4.3; UDT4 4.11 {@code CUDT::listen}): a
 * first request is answered with a SYN cookie derived from the client's address, the minute and a
 * secret, and only a request that returns it (this minute's or the last one's) is accepted, so a
 * spoofed flood creates no state. Version and socket type must match, or the answer is UDT4's
 * refusal, 1002. Nothing here reads a clock or holds a connection; the driver routes requests for
 * connections it already has to them (they resend their response). A listener with several sockets
 * shares one instance among them (safe across threads), so a cookie handed out by one socket is valid
 * at the others.
 */
public final class UdtListener {
    private static final long MINUTE_NANOS = 60_000_000_000L;

    /**
     * What to do with a handshake that reached the listener.
     *
     * @param reply  a datagram to send back (ownership passes), or null
     * @param accept the client's request to {@link UdtConnection#accept}, or null
     */
    public record Answer(ByteBuf reply, Handshake accept) {
    }

    private static final Answer IGNORE = new Answer(null, null);

    private final UdtConfig config;
    private final byte[] secret;
    private final long startNanos;
    private volatile boolean accepting = true;

    /**
     * Creates a listener.
     *
     * @param secret     at least 16 random bytes, kept for the listener's life
     * @param startNanos the time the listener opened
     */
    public UdtListener(UdtConfig config, byte[] secret, long startNanos) {
        if (secret.length < 16) {
            throw new IllegalArgumentException("the cookie secret needs at least 16 bytes, had " + secret.length);
        }
        this.config = config;
        this.secret = secret.clone();
        this.startNanos = startNanos;
    }

    /** Whether new requests are accepted; when not, a request with a valid cookie is refused (1002). */
    public void setAccepting(boolean value) {
        accepting = value;
    }

    /**
     * Decides about a control packet addressed to the listener (destination socket id 0).
     *
     * @param packet the datagram; the caller keeps ownership
     * @param from   where it came from
     */
    public Answer onHandshake(ByteBuf packet, InetSocketAddress from, long nowNanos) {
        if (packet.readableBytes() < UdtPacket.HEADER_BYTES + Handshake.BYTES || !UdtPacket.isControl(packet)
                || UdtPacket.controlType(packet) != UdtPacket.HANDSHAKE) {
            return IGNORE;
        }
        Handshake hs = Handshake.read(packet, packet.readerIndex() + UdtPacket.HEADER_BYTES, config.ipv6());
        long minute = (nowNanos - startNanos) / MINUTE_NANOS;
        if (hs.requestType() == Handshake.REQUEST) {
            return new Answer(reply(hs.with(Handshake.REQUEST, cookie(from, minute)), hs.socketId(), nowNanos), null);
        }
        if (hs.requestType() != Handshake.RESPONSE
                || (hs.cookie() != cookie(from, minute) && hs.cookie() != cookie(from, minute - 1))) {
            return IGNORE;
        }
        int type = config.messageMode() ? Handshake.DGRAM : Handshake.STREAM;
        if (hs.version() != Handshake.VERSION || hs.socketType() != type || !accepting || hs.socketId() == 0) {
            return new Answer(reply(hs.with(Handshake.REFUSED, hs.cookie()), hs.socketId(), nowNanos), null);
        }
        return new Answer(null, hs);
    }

    private ByteBuf reply(Handshake hs, int destination, long nowNanos) {
        ByteBuf p = UdtPacket.control(config.allocator(), UdtPacket.HANDSHAKE, 0, (int) ((nowNanos - startNanos) / 1000),
                destination, Handshake.BYTES);
        hs.writeTo(p);
        return p;
    }

    int cookie(InetSocketAddress from, long minute) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(secret);
            sha.update(from.getAddress().getAddress());
            sha.update(ByteBuffer.allocate(12).putInt(from.getPort()).putLong(minute).array());
            return ByteBuffer.wrap(sha.digest()).getInt();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }

    @Override
    public String toString() {
        return "UdtListener[" + (config.messageMode() ? "message" : "stream") + (accepting ? "" : ", not accepting") + "]";
    }

}
