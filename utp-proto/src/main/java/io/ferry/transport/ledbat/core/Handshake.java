package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.wire.PacketReader;
import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.PacketValidity;
import io.ferry.transport.ledbat.wire.PacketWriter;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;

/**
 * Where one connection's handshake stands (BEP 29: the initiator's SYN, the acceptor's STATE answer) and
 * the acceptor's amplification budget. Until the initiator acknowledges the answer (proving it receives at
 * its address), the acceptor sends at most {@link #MAX_AMPLIFICATION} answers per SYN it received, QUIC's
 * bound before address validation (RFC 9000 §8.1), and no data.
 */
final class Handshake {

    /** Handshake answers an acceptor sends per SYN received until its peer proves its address. */
    static final int MAX_AMPLIFICATION = 3;

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

    /** Whether a packet acknowledging {@code ackNr} confirms an acceptor's answer that carried {@code firstSeqNr}. */
    static boolean confirms(int ackNr, int firstSeqNr) {
        return ackNr == UtpWire.seqAdd(firstSeqNr & UtpWire.SEQ_MASK, -1);
    }

    /** Whether a packet acknowledging {@code ackNr} confirms this acceptor's answer. */
    boolean confirmedBy(int ackNr) {
        return confirms(ackNr, seqNr);
    }

    /** Whether a STATE acknowledging {@code ackNr} answers this initiator's SYN. */
    boolean answers(int ackNr) {
        return ackNr == seqNr;
    }

    /** The peer proved its address: no more answers are needed, and data may flow. */
    void confirm() {
        peerConfirmed = true;
    }

    /** The initiator sent its SYN again: our answer was lost, and the budget grows by one SYN's worth. */
    void synRepeated() {
        synsReceived++;
    }

    /** Takes one answer from the budget; false if it is spent (the answer must not be sent). */
    boolean spendAnswer() {
        if (answers >= MAX_AMPLIFICATION * synsReceived) {
            return false;
        }
        answers++;
        return true;
    }

    /** The acceptor's answer to {@code syn}, built without a connection; see {@link UtpConnection#handshakeAnswer}. */
    static ByteBuf answer(UtpConfig config, ByteBuf syn, int seqNr, long nowNanos) {
        PacketReader r = readSyn(syn);
        int theirTimestamp = r.timestampMicros();
        int reply = 0;
        if (theirTimestamp != 0) {
            int delay = UtpWire.micros32(nowNanos) - theirTimestamp;
            reply = delay == 0 ? 1 : delay;
        }
        ByteBuf p = config.allocator().ioBuffer(UtpWire.HEADER_SIZE);
        PacketWriter.writeHeader(p, PacketType.STATE, UtpWire.EXTENSION_NONE, r.connectionId(), UtpWire.micros32(nowNanos),
                reply, config.receiveBufferSize(), seqNr & UtpWire.SEQ_MASK, r.seqNr());
        return p;
    }

    /** {@code syn} read, once checked to be a valid SYN. */
    static PacketReader readSyn(ByteBuf syn) {
        PacketReader r = new PacketReader();
        PacketValidity validity = r.wrap(syn);
        if (validity != PacketValidity.VALID) {
            throw new IllegalArgumentException("not a valid uTP packet: " + validity);
        }
        if (r.type() != PacketType.SYN) {
            throw new IllegalArgumentException("expected a SYN packet, got " + r.type());
        }
        return r;
    }
}
