package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.wire.PacketReader;
import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.PacketValidity;
import io.ferry.transport.ledbat.wire.PacketWriter;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;

/**
 * The acceptor's answer to a SYN (BEP 29: a STATE whose {@code ack_nr} is the SYN's sequence number and
 * whose {@code seq_nr} is the acceptor's first), and what proves the initiator received it: its next
 * packet acknowledges one before that first sequence number. A listener builds the answer without a
 * connection when its half-open places are full (its SYN cache, RFC 4987) and makes the connection with
 * {@link UtpConnection#revive} only once the initiator's next packet {@link #confirms confirms} it.
 */
public final class SynAnswer {

    /**
     * Answers an acceptor sends per SYN received until the initiator proves its address: QUIC's bound
     * before address validation (RFC 9000 §8.1), which keeps a listener from amplifying spoofed SYNs.
     */
    public static final int MAX_AMPLIFICATION = 3;

    private SynAnswer() {
    }

    /**
     * The answer {@link UtpConnection#accept} would send to {@code syn}.
     *
     * @param seqNr the sequence number the answer carries (the acceptor's first)
     * @return a new datagram; ownership passes to the caller
     * @throws IllegalArgumentException if {@code syn} is not a valid SYN packet
     */
    public static ByteBuf build(UtpConfig config, ByteBuf syn, int seqNr, long nowNanos) {
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

    /** Whether a packet acknowledging {@code ackNr} confirms an answer that carried {@code seqNr}. */
    public static boolean confirms(int ackNr, int seqNr) {
        return ackNr == UtpWire.seqAdd(seqNr & UtpWire.SEQ_MASK, -1);
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
