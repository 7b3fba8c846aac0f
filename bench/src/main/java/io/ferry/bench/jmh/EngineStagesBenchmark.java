package io.ferry.bench.jmh;

import io.ferry.transport.ledbat.core.ConnectionSink;
import io.ferry.transport.ledbat.core.EngineConnection;
import io.ferry.transport.ledbat.core.UtpConfig;
import io.ferry.transport.ledbat.core.UtpConnection;
import io.ferry.transport.udt.proto.core.UdtConfig;
import io.ferry.transport.udt.proto.core.UdtConnection;
import io.ferry.transport.udt.proto.core.UdtListener;
import io.ferry.transport.udt.proto.wire.Handshake;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The engine's per-packet stages without sockets, so that a regression in the protocol cores shows up as a
 * number (issue 58; the endpoint's parse-and-route stage is {@link EngineRouteBenchmark}): {@code packet}
 * moves one full payload through both sans-I/O cores of a wire and back: the sender's write, flush and packetization, the receiver's parse, reassembly, delivery and
 * acknowledgement, and the sender's processing of that acknowledgement ({@code utp} or {@code udt}).
 * Virtual time advances 20 µs per packet (about 560 Mbit/s at 1,400 bytes), so pacing and the timers see
 * a steady flow. Memory allocation per operation: run with {@code -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class EngineStagesBenchmark {

    private static final InetSocketAddress PEER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 40_000);
    private static final long STEP_NANOS = 20_000;

    @Param({"utp", "udt"})
    public String wire;

    private final ArrayDeque<ByteBuf> toA = new ArrayDeque<>();
    private final ArrayDeque<ByteBuf> toB = new ArrayDeque<>();
    private EngineConnection a;
    private EngineConnection b;
    private Sink sinkA;
    private Sink sinkB;
    private ByteBuf payload;
    private long now = 1_000_000_000L;
    private long delivered;

    /** One side's outputs: datagrams to the other side's queue, payload consumed at once. */
    private final class Sink implements ConnectionSink {
        private final ArrayDeque<ByteBuf> outbox;
        private EngineConnection self;

        Sink(ArrayDeque<ByteBuf> outbox) {
            this.outbox = outbox;
        }

        @Override
        public void send(ByteBuf packet) {
            outbox.add(packet);
        }

        @Override
        public void connected() {
        }

        @Override
        public void data(ByteBuf data) {
            int n = data.readableBytes();
            delivered += n;
            data.release();
            self.consumed(n, now);
        }

        @Override
        public void endOfStream() {
        }

        @Override
        public void writabilityChanged(boolean writable) {
        }

        @Override
        public void closed(Throwable causeOrNull) {
            if (causeOrNull != null) {
                throw new IllegalStateException("the benchmark's connection closed", causeOrNull);
            }
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        payload = Unpooled.directBuffer(1400).writeZero(1400);
        sinkA = new Sink(toB);
        sinkB = new Sink(toA);
        if (wire.equals("utp")) {
            connectUtp();
        } else {
            connectUdt();
        }
        sinkA.self = a;
        sinkB.self = b;
        pump();
    }

    private void connectUtp() {
        UtpConfig config = UtpConfig.defaults();
        UtpConnection client = UtpConnection.connect(config, 1000, 1, now);
        a = client;
        client.collect(sinkA, true);
        ByteBuf syn = toB.poll();
        UtpConnection server = UtpConnection.accept(config, syn, 7000, now);
        b = server;
        syn.release();
        server.collect(sinkB, true);
    }

    private void connectUdt() {
        UdtConfig config = UdtConfig.defaults();
        UdtListener listener = new UdtListener(config, new byte[32], now);
        UdtConnection client = UdtConnection.connect(config, 0x1111, 12345, PEER.getAddress(), now);
        a = client;
        for (int round = 0; round < 4 && b == null; round++) {
            client.collect(sinkA, true);
            for (ByteBuf p; (p = toB.poll()) != null; ) {
                UdtListener.Answer answer = listener.onHandshake(p, PEER, now);
                if (answer.reply() != null) {
                    client.onDatagram(answer.reply(), now);
                    answer.reply().release();
                }
                Handshake request = answer.accept();
                if (request != null) {
                    b = UdtConnection.accept(config, 0x2222, request, PEER.getAddress(), now);
                }
                p.release();
            }
        }
        if (b == null) {
            throw new IllegalStateException("the UDT handshake did not complete in memory");
        }
        b.collect(sinkB, true);
        for (ByteBuf p; (p = toA.poll()) != null; ) {
            client.onDatagram(p, now);
            p.release();
        }
    }

    /** Hands each side's datagrams to the other until both are quiet. */
    private void pump() {
        for (int rounds = 0; rounds < 64; rounds++) {
            a.collect(sinkA, true);
            b.collect(sinkB, true);
            if (toA.isEmpty() && toB.isEmpty()) {
                return;
            }
            for (ByteBuf p; (p = toB.poll()) != null; ) {
                receive(b, p);
            }
            for (ByteBuf p; (p = toA.poll()) != null; ) {
                receive(a, p);
            }
        }
    }

    private void receive(EngineConnection c, ByteBuf p) {
        try {
            if (c instanceof UtpConnection u) {
                u.onPacket(p, null, now);
            } else {
                ((UdtConnection) c).onDatagram(p, now);
            }
        } finally {
            p.release();
        }
    }

    /** One payload through the sender's core, the receiver's and back (with whatever timers fall due). */
    @Benchmark
    public long packet() {
        now += STEP_NANOS;
        if (a instanceof UtpConnection u) {
            u.write(payload.duplicate());
        } else {
            ((UdtConnection) a).write(payload.retainedDuplicate());
        }
        a.flush(now);
        if (a.nextDeadlineNanos() <= now) {
            a.onTimer(now);
        }
        if (b.nextDeadlineNanos() <= now) {
            b.onTimer(now);
        }
        pump();
        return delivered;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        a.abort(now);
        b.abort(now);
        a.collect(sinkA, true);
        b.collect(sinkB, true);
        toA.forEach(ByteBuf::release);
        toB.forEach(ByteBuf::release);
        a.releaseUncollected();
        b.releaseUncollected();
        payload.release();
    }
}
