package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.wire.PacketReader;
import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.UtpWire;

/**
 * What a received packet, valid and carrying this connection's id, may do to the connection: checked
 * before it changes anything, and decided here alone. BEP 29 trusts any packet with the right id; these
 * rules keep a blind attacker, who can guess a 16-bit id but not the sequence numbers in flight, from
 * ending or stalling a connection (RFC 5961's answer to blind in-window attacks on TCP), and keep an
 * acceptor from sending data to an address that never proved it receives there (RFC 9000 §8.1).
 */
final class PacketScreen {

    /** How far (in packets) a STATE's sequence or acknowledgement number may stray and still be believed. */
    static final int STATE_SEQ_SLACK = 1024;

    /** What the connection does with the packet. */
    enum Verdict {
        /** Dropped and counted: a forgery, or not from whoever received our answer to the SYN. */
        IMPLAUSIBLE,
        /** A believable RESET: the connection ends. */
        RESET,
        /** The initiator waits for the answer to its SYN and this is not it: ignored. */
        NOT_THE_ANSWER,
        /** The acceptor's answer to our SYN: the handshake completes, then the packet is processed. */
        COMPLETES_HANDSHAKE,
        /** The initiator sent its SYN again: our answer was lost (or our confirmation of it). */
        REPEATED_SYN,
        /** The first packet that acknowledges our answer: the initiator proved its address, then the packet is processed. */
        CONFIRMS_PEER,
        /** Processed as usual. */
        ACCEPT
    }

    private PacketScreen() {
    }

    /**
     * Decides what {@code packet} (of a connection in {@code state}, not yet in TIME_WAIT) may do.
     *
     * <ul>
     *   <li>A RESET must acknowledge something we sent and not yet saw acknowledged.</li>
     *   <li>Until the initiator acknowledged our answer to its SYN, everything but a repeated SYN must.</li>
     *   <li>A STATE's sequence number must be near the one we expect and its acknowledgement not more than
     *       {@link #STATE_SEQ_SLACK} packets behind: a forged one could close the window (its
     *       {@code wnd_size}) and stall the stream.</li>
     * </ul>
     */
    static Verdict of(PacketReader packet, ConnectionState state, Handshake handshake, SendPath send, InboundStream inbound) {
        PacketType type = packet.type();
        if (type == PacketType.RESET) {
            return send.plausibleAck(packet.ackNr()) ? Verdict.RESET : Verdict.IMPLAUSIBLE;
        }
        boolean confirms = false;
        if (!handshake.peerConfirmed() && type != PacketType.SYN) {
            if (!handshake.confirmedBy(packet.ackNr())) {
                return Verdict.IMPLAUSIBLE;
            }
            confirms = true;
        }
        if (type == PacketType.STATE && state.isEstablished() && !plausibleState(packet, send, inbound)) {
            return Verdict.IMPLAUSIBLE;
        }
        if (state == ConnectionState.SYN_SENT) {
            // data cannot complete it: a data packet does not say whether earlier ones were sent
            return type == PacketType.STATE && handshake.answers(packet.ackNr())
                    ? Verdict.COMPLETES_HANDSHAKE : Verdict.NOT_THE_ANSWER;
        }
        if (type == PacketType.SYN) {
            return Verdict.REPEATED_SYN;
        }
        return confirms ? Verdict.CONFIRMS_PEER : Verdict.ACCEPT;
    }

    private static boolean plausibleState(PacketReader packet, SendPath send, InboundStream inbound) {
        // a STATE carries the peer's next sequence number; older ones may arrive late
        int fromExpected = UtpWire.seqDiff(packet.seqNr(), UtpWire.seqAdd(inbound.ackNr(), 1));
        if (fromExpected < -STATE_SEQ_SLACK || fromExpected > STATE_SEQ_SLACK) {
            return false;
        }
        return UtpWire.seqDiff(packet.ackNr(), send.lowestUnacknowledged()) >= -STATE_SEQ_SLACK;
    }
}
