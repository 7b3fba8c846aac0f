package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.wire.PacketReader;
import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.PacketWriter;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Helpers for the code that shares one UDP socket among many connections and must route each
 * datagram, keyed by (remote address, {@link ConnectionIds#recvId()}).
 *
 * <p>Routing rules, after {@link PacketReader#wrap} returned {@code VALID}:
 * <ul>
 *   <li>{@code ST_SYN}: look up {@link #synRecvId}; if a connection exists it is a retransmitted SYN
 *       and goes to that connection's {@code onPacket}; otherwise it may be accepted with
 *       {@link UtpConnection#accept}.</li>
 *   <li>{@code ST_RESET}: the peer may use either id of the pair, so try the connection id itself, then
 *       {@code id + 1} and {@code id - 1}, each only if {@link UtpConnection#acceptsReset} says so.
 *       Never answer a RESET.</li>
 *   <li>everything else: look up the connection id; if there is no connection, answer with
 *       {@link #resetReply}.</li>
 * </ul>
 */
public final class UtpDemux {
    private UtpDemux() {
    }

    /** Returns the {@code recvId} an acceptor created for this SYN has: its connection id plus one. */
    public static int synRecvId(PacketReader syn) {
        return UtpWire.seqAdd(syn.connectionId(), 1);
    }

    /**
     * Builds the RESET that answers a packet for an unknown connection (never answer a RESET or a SYN
     * with this). It carries the packet's own connection id and acknowledges its sequence number.
     *
     * @param alloc    the allocator of the reply
     * @param received the packet being answered (wrapped and valid)
     * @param nowNanos the current time
     * @return a new 20-byte datagram; ownership passes to the caller
     */
    public static ByteBuf resetReply(ByteBufAllocator alloc, PacketReader received, long nowNanos) {
        ByteBuf reply = alloc.ioBuffer(UtpWire.HEADER_SIZE);
        PacketWriter.writeHeader(reply, PacketType.RESET, UtpWire.EXTENSION_NONE, received.connectionId(),
                UtpWire.micros32(nowNanos), 0, 0, UtpWire.seqAdd(received.ackNr(), 1), received.seqNr());
        return reply;
    }
}
