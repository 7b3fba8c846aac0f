package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.PacketWriter;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A peer that sends thousands of 1-byte packets, behind a gap or to an application that does not read,
 * cannot make a connection hold more memory than its receive buffer plus one packet: small payloads
 * are copied out of the receive buffers they arrived in (or gathered, in a read batch), and the window is
 * charged with what is held.
 * Memory is measured as the capacity of every buffer still allocated, datagram buffers included.
 */
class ReceiveMemoryBoundTest {
    private static final int RECEIVE_BUFFER = 64 << 10;
    private static final int PACKETS = 4_000;

    @ParameterizedTest(name = "{0}-byte datagram buffers, gap first: {1}, in read batches of {2}")
    @CsvSource({"2048, true, 0", "2048, false, 0", "65536, true, 0", "65536, false, 0", "65536, false, 64", "65536, false, 4000"})
    void tinyPacketsCannotPinMoreThanTheReceiveBuffer(int datagramBuffer, boolean gapFirst, int batch) {
        UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(false);
        UtpConfig config = UtpConfig.builder().allocator(alloc).receiveBufferSize(RECEIVE_BUFFER).build();
        Holder app = new Holder();
        int peerRecvId = 1000;
        int peerSeq = 500;
        ByteBuf syn = packet(alloc, 64, PacketType.SYN, peerRecvId, peerSeq, 0, 0);
        UtpConnection c = UtpConnection.accept(config, syn, 7, 0);
        syn.release();
        app.collect(c);
        long now = 1_000_000L;
        int first = UtpWire.seqAdd(peerSeq, gapFirst ? 2 : 1); // a gap leaves everything in the reorder buffer
        for (int i = 0; i < PACKETS; i++) {
            if (batch > 0 && i % batch == 0) {
                c.beginReadBatch(); // in-order payload is then gathered (GatheredPayloads), charged at the buffer's size
            }
            ByteBuf datagram = packet(alloc, datagramBuffer, PacketType.DATA, peerRecvId + 1, UtpWire.seqAdd(first, i), 1, 6);
            c.onPacket(datagram, null, now);
            datagram.release(); // the endpoint releases each datagram after the call
            app.collect(c);
            if (batch > 0 && (i % batch == batch - 1 || i == PACKETS - 1)) {
                c.endReadBatch(now);
                app.collect(c);
            }
            now += 10_000;
        }
        long held = used(alloc);
        long bound = RECEIVE_BUFFER + config.packetSize();
        assertTrue(held <= bound, "held " + held + " bytes in buffers; the bound is " + bound);
        long window = c.pathStats().receiveWindowBytes();
        if (batch == 0) {
            assertTrue(window < config.packetSize(), "the window is full: " + window);
        } else { // gathered: 1-byte payloads cost a few bytes each, not a buffer each; the window still counts them
            assertTrue(window <= RECEIVE_BUFFER - held, "window " + window + " with " + held + " bytes held");
        }
        long kept = gapFirst ? 0 : app.delivered.stream().mapToLong(ByteBuf::readableBytes).sum();
        assertTrue(gapFirst || kept > 100, "the in-order case delivered " + kept + " payload bytes");
        app.releaseAll();
        c.abort(now);
        app.collect(c);
        assertEquals(0, used(alloc), "every buffer released after the abort");
    }

    private static long used(UnpooledByteBufAllocator alloc) {
        return alloc.metric().usedHeapMemory() + alloc.metric().usedDirectMemory();
    }

    private static ByteBuf packet(UnpooledByteBufAllocator alloc, int capacity, PacketType type, int connectionId,
                                  int seq, int payload, int ack) {
        ByteBuf b = alloc.heapBuffer(capacity, capacity);
        PacketWriter.writeHeader(b, type, UtpWire.EXTENSION_NONE, connectionId, 1, 0, 1 << 20, seq, ack);
        for (int i = 0; i < payload; i++) {
            b.writeByte('x');
        }
        return b;
    }

    /** A driver whose application keeps what it is given and never reports it consumed. */
    private static final class Holder {
        final List<ByteBuf> delivered = new ArrayList<>();

        void collect(UtpConnection c) {
            for (ByteBuf p; (p = c.pollTransmit()) != null; ) {
                p.release();
            }
            c.pollEvents();
            for (ByteBuf d; (d = c.pollData()) != null; ) {
                delivered.add(d);
            }
        }

        void releaseAll() {
            delivered.forEach(ByteBuf::release);
            delivered.clear();
        }
    }
}
