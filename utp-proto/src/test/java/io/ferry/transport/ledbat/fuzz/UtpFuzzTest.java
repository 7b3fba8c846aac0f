package io.ferry.transport.ledbat.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.ferry.transport.ledbat.core.ConnectionSink;
import io.ferry.transport.ledbat.core.UtpConfig;
import io.ferry.transport.ledbat.core.UtpConnection;
import io.ferry.transport.ledbat.wire.PacketReader;
import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.PacketValidity;
import io.ferry.transport.ledbat.wire.PacketWriter;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzz targets for what a uTP endpoint takes from the network: the BEP 29 packet reader, and a
 * connection core (acceptor or initiator) driven by an arbitrary sequence of datagrams and clock steps
 * in virtual time. Under {@code mvn verify} each runs its regression inputs (the files beside this class
 * under {@code src/test/resources}); with {@code JAZZER_FUZZ=1} Jazzer fuzzes it (see the module README).
 * Nothing may escape as an exception, no buffer may leak (the leak detector runs at paranoid), and the
 * connection's invariants must hold after every step.
 */
@ExtendWith(LeakDetectionExtension.class)
class UtpFuzzTest {

    @FuzzTest(maxDuration = "10m")
    void packetReaderAcceptsOrRejectsAnythingWithoutThrowing(byte[] datagram) {
        ByteBuf buf = Unpooled.wrappedBuffer(datagram);
        try {
            PacketReader reader = new PacketReader();
            PacketValidity validity = reader.wrap(buf);
            assertEquals(validity, PacketReader.validate(buf), "wrap and validate agree");
            if (validity != PacketValidity.VALID) {
                return;
            }
            assertTrue(reader.payloadOffset() >= UtpWire.HEADER_SIZE, "the payload starts after the header");
            assertEquals(datagram.length, reader.payloadOffset() + reader.payloadLength(), "header, extensions and payload fill the datagram");
            reader.type();
            reader.connectionId();
            reader.seqNr();
            reader.ackNr();
            reader.windowSize();
            if (reader.hasSelectiveAck()) {
                int bits = reader.selectiveAckBits();
                assertTrue(bits > 0 && bits % 32 == 0, "a selective ACK is whole 32-bit words: " + bits);
                for (int i = 0; i < bits; i++) {
                    reader.isSelectivelyAcked(i);
                }
            }
        } finally {
            buf.release();
        }
    }

    @FuzzTest(maxDuration = "10m")
    void aConnectionSurvivesAnySequenceOfDatagrams(FuzzedDataProvider data) {
        boolean acceptor = data.consumeBoolean();
        long now = 1_000_000_000L;
        UtpConfig config = UtpConfig.builder().sendBufferSize(64 << 10).receiveBufferSize(64 << 10).build();
        int peerRecvId = data.consumeInt(0, 0xFFFF);
        int peerSeq = data.consumeInt(0, 0xFFFF);
        UtpConnection c;
        if (acceptor) {
            ByteBuf syn = Unpooled.buffer(UtpWire.HEADER_SIZE);
            PacketWriter.writeHeader(syn, PacketType.SYN, UtpWire.EXTENSION_NONE, peerRecvId, 0, 0, 1 << 20, peerSeq, 0);
            try {
                c = UtpConnection.accept(config, syn, data.consumeInt(0, 0xFFFF), now);
            } finally {
                syn.release();
            }
        } else {
            c = UtpConnection.connect(config, peerRecvId, data.consumeInt(0, 0xFFFF), now);
        }
        Sink sink = new Sink();
        try {
            c.collect(sink);
            byte[] toWrite = new byte[data.consumeInt(0, 200_000)];
            ByteBuf app = Unpooled.wrappedBuffer(toWrite);
            int steps = data.consumeInt(0, 64);
            for (int step = 0; step < steps && data.remainingBytes() > 0; step++) {
                switch (data.consumeInt(0, 4)) {
                    case 0 -> now += data.consumeLong(0, 5_000_000_000L);
                    case 1 -> {
                        if (!c.isClosed() && !c.streams().isOutputShutdown() && app.isReadable()) {
                            c.write(app);
                            c.flush(now);
                        }
                    }
                    case 2 -> {
                        if (data.consumeBoolean()) {
                            c.close(now);
                        } else {
                            c.shutdownOutput(now);
                        }
                    }
                    default -> {
                        ByteBuf datagram = datagram(data, c, peerSeq);
                        try {
                            c.onPacket(datagram, null, now);
                        } finally {
                            datagram.release();
                        }
                    }
                }
                if (c.nextDeadlineNanos() <= now) {
                    c.onTimer(now);
                }
                c.collect(sink);
                assertTrue(c.streams().unacknowledgedBytes() >= 0, "unacknowledged bytes never go negative");
                assertTrue(c.streams().unacknowledgedBytes() <= toWrite.length, "nor exceed what was written");
                assertTrue(c.pathStats().bytesInFlight() >= 0, "bytes in flight never go negative");
                assertTrue(c.pathStats().cwndBytes() > 0, "the window stays positive");
                assertTrue(c.nextDeadlineNanos() > now || c.isTerminated() || c.nextDeadlineNanos() == now,
                        "a due timer was run");
            }
            app.release();
        } finally {
            c.abort(now);
            c.collect(sink);
            c.releaseUncollected();
        }
    }

    /**
     * A datagram the fuzzer shapes: mostly a well-formed header of any type, addressed to the connection
     * (or not), with sequence and acknowledgement numbers near the ones in play (or anywhere), then
     * arbitrary extension and payload bytes; sometimes raw bytes.
     */
    private static ByteBuf datagram(FuzzedDataProvider data, UtpConnection c, int peerSeq) {
        if (data.consumeInt(0, 9) == 0) {
            return Unpooled.wrappedBuffer(data.consumeBytes(data.consumeInt(0, 1500)));
        }
        PacketType type = PacketType.values()[data.consumeInt(0, PacketType.values().length - 1)];
        int id = data.consumeBoolean() ? (type == PacketType.SYN ? c.ids().sendId() : c.ids().recvId()) : data.consumeInt(0, 0xFFFF);
        int seq = data.consumeBoolean() ? (peerSeq + data.consumeInt(-4, 64)) & 0xFFFF : data.consumeInt(0, 0xFFFF);
        int ack = data.consumeInt(0, 0xFFFF);
        long window = data.consumeBoolean() ? 1 << 20 : data.consumeLong(0, 0xFFFFFFFFL);
        int extension = data.consumeInt(0, 3);
        ByteBuf out = Unpooled.buffer();
        PacketWriter.writeHeader(out, type, extension, id, data.consumeInt(), data.consumeInt(), window, seq, ack);
        out.writeBytes(data.consumeBytes(data.consumeInt(0, 1400)));
        return out;
    }

    /** Releases everything the connection hands out. */
    private static final class Sink implements ConnectionSink {
        @Override
        public void send(ByteBuf packet) {
            packet.release();
        }

        @Override
        public void connected() {
        }

        @Override
        public void data(ByteBuf payload) {
            payload.release();
        }

        @Override
        public void endOfStream() {
        }

        @Override
        public void writabilityChanged(boolean writable) {
        }

        @Override
        public void closed(Throwable causeOrNull) {
        }
    }
}
