package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.PacketWriter;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * In-order payload that arrives in shared receive buffers (as {@code UDP_GRO} splits them) reaches the
 * application once per read batch, gathered into few buffers, in order, before the end of the stream or
 * the close, charged to the window while held and released from it when consumed; outside a read batch
 * each payload is its own buffer as before. Every buffer is accounted for at the end.
 */
class GatheredDeliveryTest {
    private static final int PAYLOAD = 1400;
    private static final int PEER_RECV_ID = 1000;
    private static final int PEER_SEQ = 500;

    private final UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(false);
    private final UtpConfig config = UtpConfig.builder().allocator(alloc).build();
    private final Recorder app = new Recorder();
    private final ByteArrayOutputStream sent = new ByteArrayOutputStream();
    private UtpConnection c;
    private int nextPacket;
    private long now = 1_000_000L;

    @AfterEach
    void everyBufferIsReleased() {
        app.releaseAll();
        if (c != null) {
            c.abort(now);
            c.collect(app);
            app.releaseAll();
        }
        assertEquals(0, alloc.metric().usedHeapMemory() + alloc.metric().usedDirectMemory(), "buffers left allocated");
    }

    @Test
    void aReadBatchOfSegmentsReachesTheApplicationAsOneBuffer() {
        accept();
        long window = c.pathStats().receiveWindowBytes();
        c.beginReadBatch();
        receive(segments(40));
        assertEquals(0, app.data.size(), "nothing is delivered before the batch ends");
        c.endReadBatch(now);
        c.collect(app);
        assertEquals(List.of("data " + 40 * PAYLOAD), app.log);
        assertArrayEquals(sent.toByteArray(), app.bytes());
        assertTrue(c.pathStats().receiveWindowBytes() < window - 40 * PAYLOAD, "the delivered buffer is charged until consumed");
        consumeAll();
        assertTrue(c.pathStats().receiveWindowBytes() >= window * 0.95, "consumed: the window is whole again, less the charge per byte learnt");
    }

    @Test
    void outsideAReadBatchEachPayloadIsItsOwnBuffer() {
        accept();
        receive(segments(10));
        c.collect(app);
        assertEquals(10, app.data.size());
        assertArrayEquals(sent.toByteArray(), app.bytes());
    }

    @Test
    void aBatchBeyondOneBufferArrivesInOrderInSeveralAndASmallRestIsCopiedToItsOwnSize() {
        accept();
        c.beginReadBatch();
        receive(segments(40));
        receive(segments(40));
        receive(segments(17));
        c.endReadBatch(now);
        c.collect(app);
        int perBuffer = GatheredPayloads.MAX_CAPACITY / PAYLOAD * PAYLOAD;
        int rest = 97 * PAYLOAD - 2 * perBuffer;
        assertEquals(List.of("data " + perBuffer, "data " + perBuffer, "data " + rest), app.log);
        assertEquals(rest, app.data.get(2).capacity(), "a mostly empty buffer is not delivered whole");
        assertArrayEquals(sent.toByteArray(), app.bytes());
    }

    @Test
    void aHoleFilledInTheBatchKeepsTheOrder() {
        accept();
        c.beginReadBatch();
        List<ByteBuf> packets = segments(20);
        ByteBuf late = packets.remove(5);
        receive(packets);
        receive(List.of(late));
        c.endReadBatch(now);
        c.collect(app);
        assertArrayEquals(sent.toByteArray(), app.bytes(), "every byte, in the order sent");
        assertTrue(app.data.size() <= 16, "the payloads before the hole gathered: " + app.log);
    }

    @Test
    void theEndOfTheStreamComesAfterTheGatheredPayload() {
        accept();
        c.beginReadBatch();
        List<ByteBuf> packets = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            packets.add(packet(PacketType.DATA, PAYLOAD));
        }
        packets.add(packet(PacketType.FIN, 100)); // a FIN with payload, in the same read: gathered too
        receive(segmentsOf(packets));
        c.endReadBatch(now);
        c.collect(app, true);
        assertEquals(List.of("data " + (5 * PAYLOAD + 100), "end"), app.log);
        assertArrayEquals(sent.toByteArray(), app.bytes());
    }

    @Test
    void aResetInTheBatchClosesAfterTheGatheredPayload() {
        accept();
        c.beginReadBatch();
        List<ByteBuf> packets = segments(5);
        packets.add(packet(PacketType.RESET, 0));
        receive(packets);
        c.endReadBatch(now);
        c.collect(app);
        assertEquals("data " + 5 * PAYLOAD, app.log.get(0));
        assertTrue(app.log.get(app.log.size() - 1).startsWith("closed"), app.log.toString());
    }

    @Test
    void aSmallReceiveBufferKeepsEachPayloadOnItsOwn() {
        UtpConfig small = UtpConfig.builder().allocator(alloc).receiveBufferSize(16 << 10).build();
        accept(small);
        c.beginReadBatch();
        receive(segments(8));
        c.endReadBatch(now);
        c.collect(app);
        assertEquals(8, app.data.size(), "an eighth of 16 KiB is not four packets: no buffer to gather into");
        assertArrayEquals(sent.toByteArray(), app.bytes());
    }

    private void accept() {
        accept(config);
    }

    private void accept(UtpConfig cfg) {
        ByteBuf syn = alloc.heapBuffer(64);
        PacketWriter.writeHeader(syn, PacketType.SYN, UtpWire.EXTENSION_NONE, PEER_RECV_ID, 1, 0, 1 << 20, PEER_SEQ, 0);
        c = UtpConnection.accept(cfg, syn, 7, now);
        syn.release();
        c.collect(app);
        app.log.clear();
    }

    /** {@code count} DATA packets laid out back to back in one 64 KiB buffer, as slices: what {@code UDP_GRO} reads. */
    private List<ByteBuf> segments(int count) {
        List<ByteBuf> packets = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            packets.add(packet(PacketType.DATA, PAYLOAD));
        }
        return segmentsOf(packets);
    }

    /** {@code packets} copied back to back into one 64 KiB buffer and released; the slices returned. */
    private List<ByteBuf> segmentsOf(List<ByteBuf> packets) {
        ByteBuf gro = alloc.directBuffer(65536, 65536);
        List<ByteBuf> out = new ArrayList<>();
        for (ByteBuf p : packets) {
            int at = gro.writerIndex();
            gro.writeBytes(p);
            p.release();
            out.add(gro.retainedSlice(at, gro.writerIndex() - at));
        }
        gro.release();
        return out;
    }

    private ByteBuf packet(PacketType type, int payload) {
        ByteBuf b = alloc.heapBuffer(UtpWire.HEADER_SIZE + payload);
        PacketWriter.writeHeader(b, type, UtpWire.EXTENSION_NONE, PEER_RECV_ID + 1, 1, 0, 1 << 20,
                UtpWire.seqAdd(PEER_SEQ, 1 + nextPacket), 6);
        for (int i = 0; i < payload; i++) {
            int v = (nextPacket * 31 + i) & 0xFF;
            b.writeByte(v);
            sent.write(v);
        }
        nextPacket++;
        return b;
    }

    /** Hands each datagram to the connection and releases it, then collects, as the endpoint does after each call. */
    private void receive(List<ByteBuf> datagrams) {
        for (ByteBuf d : datagrams) {
            c.onPacket(d, null, now);
            d.release();
            c.collect(app);
            now += 1_000;
        }
    }

    private void consumeAll() {
        int n = 0;
        for (ByteBuf d : app.data) {
            n += d.readableBytes();
        }
        c.consumed(n, now);
        c.collect(app);
    }

    /** The application's side: keeps the payload, logs what arrives in order, drops datagrams. */
    private static final class Recorder implements ConnectionSink {
        final List<ByteBuf> data = new ArrayList<>();
        final List<String> log = new ArrayList<>();

        @Override
        public void send(ByteBuf packet) {
            packet.release();
        }

        @Override
        public void connected() {
        }

        @Override
        public void data(ByteBuf payload) {
            data.add(payload);
            log.add("data " + payload.readableBytes());
        }

        @Override
        public void endOfStream() {
            log.add("end");
        }

        @Override
        public void writabilityChanged(boolean writable) {
        }

        @Override
        public void closed(Throwable causeOrNull) {
            log.add("closed " + causeOrNull);
        }

        byte[] bytes() {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (ByteBuf d : data) {
                byte[] b = new byte[d.readableBytes()];
                d.getBytes(d.readerIndex(), b);
                all.write(b, 0, b.length);
            }
            return all.toByteArray();
        }

        void releaseAll() {
            data.forEach(ByteBuf::release);
            data.clear();
        }
    }
}
