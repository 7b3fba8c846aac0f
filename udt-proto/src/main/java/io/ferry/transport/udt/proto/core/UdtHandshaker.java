package io.ferry.transport.udt.proto.core;

import io.ferry.transport.udt.proto.wire.Handshake;
import io.ferry.transport.udt.proto.wire.SeqNumbers;

import java.net.InetAddress;

/**
 * One connection's part of UDT4's connection setup (draft-gg-udt-03 section 4.3; UDT4 4.11's
 * {@code CUDT::connect} and its rendezvous): which handshake it sends, to which socket id, and what a
 * received one asks of it. It sends nothing and reads no clock: {@link UdtConnection} acts on its
 * {@link Decision}s.
 *
 * <p>A client requests, takes the listener's cookie from its answer and requests again with it; the
 * listener's response, addressed to the client's socket id, connects it. A listener's side is connected
 * from the start ({@link UdtListener} checked the cookie) and answers repeated requests. Rendezvous
 * peers both request, answer -1 once they hear the other, and the first connected confirms with -2.
 */
final class UdtHandshaker {

    /** How often an unanswered handshake is sent again (UDT4: 250 ms). */
    static final long RESEND_NANOS = 250_000_000L;

    /** Which way the connection is set up. */
    enum Role { CLIENT, SERVER, RENDEZVOUS }

    /** What a handshake received while connecting asks of the connection. */
    enum Decision {
        /** Nothing (a duplicate, or not for this side). */
        IGNORE,
        /** Send {@link #ours()} to {@link #destination()}. */
        SEND,
        /** The peer refused the connection. */
        REFUSED,
        /** Connected, with the {@link #peer()} handshake's parameters. */
        CONNECT,
        /** Connected, with the {@link #peer()} handshake's parameters; then send {@link #ours()} (a rendezvous confirmation). */
        CONNECT_AND_SEND
    }

    private final Role role;
    private final int socketId;
    private final long deadlineNanos;
    private Handshake ours;
    private Handshake peer;
    private int destination;
    private long lastSentNanos;

    private UdtHandshaker(Role role, int socketId, Handshake ours, int destination, long deadlineNanos) {
        this.role = role;
        this.socketId = socketId;
        this.ours = ours;
        this.destination = destination;
        this.deadlineNanos = deadlineNanos;
    }

    /** A client's setup towards a listener at {@code peerAddress}: its first request goes to socket id 0. */
    static UdtHandshaker client(UdtConfig config, int socketId, int initialSeq, InetAddress peerAddress, long nowNanos) {
        return new UdtHandshaker(Role.CLIENT, socketId, request(config, Handshake.REQUEST, socketId, initialSeq, peerAddress), 0,
                nowNanos + config.connectTimeoutNanos());
    }

    /** A rendezvous towards a peer at {@code peerAddress} that does the same towards this side. */
    static UdtHandshaker rendezvous(UdtConfig config, int socketId, int initialSeq, InetAddress peerAddress, long nowNanos) {
        return new UdtHandshaker(Role.RENDEZVOUS, socketId, request(config, Handshake.RENDEZVOUS, socketId, initialSeq, peerAddress), 0,
                nowNanos + config.connectTimeoutNanos());
    }

    /**
     * A listener's side of a client's request that carried a valid cookie: connected at once, answering
     * with the smaller MSS; both directions start at the client's initial sequence number.
     */
    static UdtHandshaker server(UdtConfig config, int socketId, Handshake request, InetAddress peerAddress, long nowNanos) {
        Handshake response = new Handshake(Handshake.VERSION, socketType(config), request.initialSeq(), Math.min(config.mss(), request.mss()),
                config.announcedFlowWindow(), Handshake.RESPONSE, socketId, request.cookie(), peerAddress);
        UdtHandshaker h = new UdtHandshaker(Role.SERVER, socketId, response, request.socketId(), nowNanos + config.connectTimeoutNanos());
        h.peer = request;
        return h;
    }

    private static Handshake request(UdtConfig config, int type, int socketId, int initialSeq, InetAddress peerAddress) {
        return new Handshake(Handshake.VERSION, socketType(config), initialSeq & SeqNumbers.MAX, config.mss(),
                config.announcedFlowWindow(), type, socketId, 0, peerAddress);
    }

    private static int socketType(UdtConfig config) {
        return config.messageMode() ? Handshake.DGRAM : Handshake.STREAM;
    }

    /**
     * A handshake arrived while connecting ({@code packetDestination}: the socket id its packet was
     * addressed to).
     */
    Decision whileConnecting(Handshake hs, int packetDestination) {
        if (hs.requestType() == Handshake.REFUSED) {
            return Decision.REFUSED;
        }
        if (role == Role.CLIENT) {
            if (hs.requestType() == Handshake.REQUEST) {
                ours = ours.with(Handshake.RESPONSE, hs.cookie()); // the listener's cookie: request again with it
                return Decision.SEND;
            }
            if (hs.requestType() == Handshake.RESPONSE && packetDestination == socketId) {
                peer = hs;
                return Decision.CONNECT;
            }
            return Decision.IGNORE;
        }
        // a connected UDT4 peer's repeated answer carries no version or socket type
        if (hs.requestType() == Handshake.REQUEST || (hs.socketType() != 0 && hs.socketType() != ours.socketType())) {
            return Decision.IGNORE;
        }
        destination = hs.socketId();
        if (ours.requestType() == Handshake.RENDEZVOUS || hs.requestType() == Handshake.RENDEZVOUS) {
            ours = ours.with(Handshake.RESPONSE, 0);
            return Decision.SEND;
        }
        peer = hs;
        ours = ours.with(Handshake.RENDEZVOUS_CONFIRM, 0);
        return Decision.CONNECT_AND_SEND;
    }

    /** Whether a connected side answers {@code hs} with its handshake again (the peer missed the answer). */
    boolean answersWhenConnected(Handshake hs) {
        return switch (role) {
            case SERVER -> hs.requestType() == Handshake.REQUEST || hs.requestType() == Handshake.RESPONSE;
            case RENDEZVOUS -> hs.requestType() != Handshake.RENDEZVOUS_CONFIRM;
            case CLIENT -> hs.requestType() > 0;
        };
    }

    /** Our handshake as it goes now. */
    Handshake ours() {
        return ours;
    }

    /** The socket id our handshake is addressed to while connecting: 0 until the peer's is known (a client's always). */
    int destination() {
        return destination;
    }

    /** The peer's handshake that connected us (for a listener's side: the client's request). */
    Handshake peer() {
        return peer;
    }

    /** Our handshake left at {@code nowNanos}. */
    void sent(long nowNanos) {
        lastSentNanos = nowNanos;
    }

    /** Whether the connect timeout passed. */
    boolean expired(long nowNanos) {
        return nowNanos >= deadlineNanos;
    }

    /** Whether our unanswered handshake is due again. */
    boolean resendDue(long nowNanos) {
        return nowNanos - lastSentNanos >= RESEND_NANOS;
    }

    /** When a connecting side next needs its timer: the resend or the timeout. */
    long nextDeadlineNanos() {
        return Math.min(deadlineNanos, lastSentNanos + RESEND_NANOS);
    }
}
