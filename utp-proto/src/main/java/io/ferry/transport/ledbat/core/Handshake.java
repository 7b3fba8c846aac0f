package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.wire.UtpWire;

/**
 * Where one connection's handshake stands (BEP 29: the initiator's SYN, the acceptor's STATE answer) and
 * the acceptor's amplification budget. Until the initiator acknowledges the answer (proving it receives at
 * its address), the acceptor sends at most {@link SynAnswer#MAX_AMPLIFICATION} answers per SYN it
 * received, and no data.
 */
final class Handshake {

    /**
     * How long an acceptor waits for the initiator to prove its address (at most the connect timeout).
     * Three answers fit in it (at 0, one RTO and three RTOs); an initiator whose SYN arrives after it
     * expired simply starts a new half-open connection.
     */
    static final long HALF_OPEN_LIFETIME_NANOS = 5_000_000_000L;

    private final int seqNr;
    private boolean peerConfirmed;
    private int synsReceived;
    private int answers;

    private Handshake(int seqNr, boolean peerConfirmed, int synsReceived) {
        this.seqNr = seqNr & UtpWire.SEQ_MASK;
        this.peerConfirmed = peerConfirmed;
        this.synsReceived = synsReceived;
    }

    /** The initiator's side: it sent a SYN with {@code synSeqNr}; its own address needs no proof. */
    static Handshake initiator(int synSeqNr) {
        return new Handshake(synSeqNr, true, 0);
    }

    /** The acceptor's side, on a first SYN: its answer carries {@code firstSeqNr}. */
    static Handshake acceptor(int firstSeqNr) {
        return new Handshake(firstSeqNr, false, 1);
    }

    /** The initiator's SYN sequence number, or the acceptor's first one (what its answer carried). */
    int seqNr() {
        return seqNr;
    }

    /** Whether the peer proved it received our answer to its SYN (always true for the initiator). */
    boolean peerConfirmed() {
        return peerConfirmed;
    }

    /** Whether a packet acknowledging {@code ackNr} confirms this acceptor's answer. */
    boolean confirmedBy(int ackNr) {
        return SynAnswer.confirms(ackNr, seqNr);
    }

    /** Whether a STATE acknowledging {@code ackNr} answers this initiator's SYN. */
    boolean answers(int ackNr) {
        return ackNr == seqNr;
    }

    /** The peer proved its address: no more answers are needed, and data may flow. */
    void confirm() {
        peerConfirmed = true;
    }

    /**
     * The initiator sent its SYN again. Before it proved its address our answer was lost: the budget grows by
     * one SYN's worth and the answer goes again if it allows; afterwards only our acknowledgement was lost.
     */
    void onRepeatedSyn(SendPath send, ConnectionStats stats, long nowNanos) {
        if (peerConfirmed) {
            send.sendState(nowNanos);
            return;
        }
        synsReceived++;
        answer(send, stats, nowNanos);
    }

    /** Sends our answer to the SYN (a STATE) if the amplification budget allows; false, and counted, if it does not. */
    boolean answer(SendPath send, ConnectionStats stats, long nowNanos) {
        if (!spendAnswer()) {
            stats.handshakeAnswersWithheld++;
            return false;
        }
        send.sendState(nowNanos);
        return true;
    }

    /** Takes one answer from the budget; false if it is spent (the answer must not be sent). */
    private boolean spendAnswer() {
        if (answers >= SynAnswer.MAX_AMPLIFICATION * synsReceived) {
            return false;
        }
        answers++;
        return true;
    }
}
