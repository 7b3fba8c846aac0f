package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.UtpWire;

/**
 * A connection's pair of ids (BEP 29): packets to this side carry {@code recvId}, those it sends carry
 * {@code sendId}, the peer's {@code recvId}. The initiator picks {@code recvId} and sends its SYN with it;
 * everything after the SYN goes to the acceptor with {@code recvId + 1}.
 *
 * @param recvId    the id carried by packets addressed to this side (16 bits)
 * @param sendId    the id this side puts in the packets it sends (16 bits)
 * @param initiator whether this side sent the SYN
 */
public record ConnectionIds(int recvId, int sendId, boolean initiator) {

    public ConnectionIds {
        recvId &= UtpWire.SEQ_MASK;
        sendId &= UtpWire.SEQ_MASK;
    }

    /** The initiator's ids for a SYN carrying {@code recvId}. */
    static ConnectionIds initiator(int recvId) {
        return new ConnectionIds(recvId, recvId + 1, true);
    }

    /** The acceptor's ids for a SYN that carried {@code synId}. */
    static ConnectionIds acceptor(int synId) {
        return new ConnectionIds(synId + 1, synId, false);
    }

    /**
     * Whether a packet of {@code type} carrying {@code id} is addressed to this side: a RESET with either id
     * of the pair (libutp answers unknown packets with the id they carried), a SYN (repeated) with the
     * initiator's, anything else with {@code recvId}.
     */
    boolean addressedToUs(PacketType type, int id) {
        return switch (type) {
            case RESET -> acceptsReset(id);
            case SYN -> !initiator && id == sendId;
            default -> id == recvId;
        };
    }

    /**
     * Whether a RESET carrying {@code id} is addressed to this connection: either id of the pair (a peer may
     * reset with either; libutp answers unknown packets with the id they carried).
     */
    public boolean acceptsReset(int id) {
        return id == recvId || id == sendId;
    }
}
