package io.ferry.transport.udt.proto.core;

import io.ferry.transport.ledbat.core.ConnectionSink;
import io.ferry.transport.udt.proto.wire.Handshake;
import io.ferry.transport.udt.proto.wire.UdtPacket;
import io.netty.buffer.ByteBuf;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Two UDT endpoints joined by a simulated path in virtual time: one-way delay, a bottleneck rate with a
 * drop-tail queue, and seeded loss, duplication and reordering. Side A connects (or meets B in a
 * rendezvous); side B is a {@link UdtListener} that accepts one connection, or a rendezvous peer. Each
 * side consumes what it receives at once and keeps it for the test to check.
 */
final class UdtSim {
    static final InetSocketAddress ADDRESS_A = new InetSocketAddress(InetAddress.getLoopbackAddress(), 4000);
    static final InetSocketAddress ADDRESS_B = new InetSocketAddress(InetAddress.getLoopbackAddress(), 9000);

    /** The path's properties, the same each way. */
    record Path(long oneWayNanos, long bitsPerSecond, int queuePackets, double loss, double duplicate, double reorder, long seed) {
        static Path clean(long oneWayNanos) {
            return new Path(oneWayNanos, 0, 0, 0, 0, 0, 1);
        }
    }

    private record Event(long at, long order, Runnable action) {
    }

    private final PriorityQueue<Event> events = new PriorityQueue<>((x, y) -> x.at != y.at ? Long.compare(x.at, y.at) : Long.compare(x.order, y.order));
    private final Path path;
    private final SplittableRandom random;
    private long order;
    long now;
    final Side a;
    final Side b;
    private UdtListener listener;
    private final UdtConfig serverConfig;
    long datagramsDropped;
    /** Drops the packets it accepts (in either direction) before the path's own loss; null drops none. */
    java.util.function.BiPredicate<Side, ByteBuf> dropIf;

    /** One end and what reached its application. */
    final class Side implements ConnectionSink {
        final String name;
        UdtConnection conn;
        Side peer;
        final ByteArrayOutputStream received = new ByteArrayOutputStream();
        final List<byte[]> messages = new ArrayList<>();
        boolean connected;
        boolean endOfStream;
        boolean closed;
        Throwable cause;
        long linkFreeAt;
        int queued;
        long closedAt = -1;
        boolean keep = true;
        long bytes;

        Side(String name) {
            this.name = name;
        }

        @Override
        public void send(ByteBuf packet) {
            transmit(this, packet);
        }

        @Override
        public void connected() {
            connected = true;
        }

        @Override
        public void data(ByteBuf payload) {
            int n = payload.readableBytes();
            bytes += n;
            byte[] bytes = new byte[n];
            payload.readBytes(bytes);
            payload.release();
            if (keep) {
                received.writeBytes(bytes);
                messages.add(bytes);
            }
            conn.consumed(n, now);
        }

        @Override
        public void endOfStream() {
            endOfStream = true;
        }

        @Override
        public void writabilityChanged(boolean writable) {
        }

        @Override
        public void closed(Throwable causeOrNull) {
            closed = true;
            cause = causeOrNull;
            closedAt = now;
        }

        void drive() {
            if (conn == null) {
                return;
            }
            conn.collect(this);
            long deadline = conn.nextDeadlineNanos();
            if (deadline != Long.MAX_VALUE) {
                UdtConnection armed = conn;
                schedule(Math.max(deadline, now), () -> {
                    if (armed.nextDeadlineNanos() <= now) {
                        armed.onTimer(now);
                        drive();
                    }
                });
            }
        }
    }

    private UdtSim(Path path, UdtConfig serverConfig) {
        this.path = path;
        this.random = new SplittableRandom(path.seed);
        this.serverConfig = serverConfig;
        this.a = new Side("A");
        this.b = new Side("B");
        a.peer = b;
        b.peer = a;
    }

    /** A client on A connecting to a listener on B. */
    static UdtSim clientServer(Path path, UdtConfig client, UdtConfig server) {
        UdtSim sim = new UdtSim(path, server);
        sim.listener = new UdtListener(server, new byte[16], 0);
        sim.a.conn = UdtConnection.connect(client, 0x1111, 12345, ADDRESS_B.getAddress(), 0);
        sim.a.drive();
        return sim;
    }

    /** Two rendezvous peers starting {@code skewNanos} apart. */
    static UdtSim rendezvous(Path path, UdtConfig config, long skewNanos) {
        UdtSim sim = new UdtSim(path, config);
        sim.a.conn = UdtConnection.rendezvous(config, 0x1111, 777, ADDRESS_B.getAddress(), 0);
        sim.a.drive();
        sim.schedule(skewNanos, () -> {
            sim.b.conn = UdtConnection.rendezvous(config, 0x2222, 0x7FFF_FF00, ADDRESS_A.getAddress(), sim.now);
            sim.b.drive();
        });
        return sim;
    }

    void schedule(long at, Runnable action) {
        events.add(new Event(at, order++, action));
    }

    private void transmit(Side from, ByteBuf packet) {
        Side to = from.peer;
        if (dropIf != null && dropIf.test(from, packet)) {
            packet.release();
            datagramsDropped++;
            return;
        }
        if (random.nextDouble() < path.loss) {
            packet.release();
            datagramsDropped++;
            return;
        }
        long departs = now;
        if (path.bitsPerSecond > 0) {
            if (from.queued >= path.queuePackets) {
                packet.release();
                datagramsDropped++;
                return;
            }
            long serialization = (packet.readableBytes() + 28) * 8L * 1_000_000_000L / path.bitsPerSecond;
            departs = Math.max(now, from.linkFreeAt) + serialization;
            from.linkFreeAt = departs;
            from.queued++;
            schedule(departs, () -> from.queued--);
        }
        long arrives = departs + path.oneWayNanos;
        if (random.nextDouble() < path.reorder) {
            arrives += path.oneWayNanos / 4 + random.nextLong(1 + path.oneWayNanos / 2);
        }
        if (random.nextDouble() < path.duplicate) {
            ByteBuf copy = packet.copy();
            schedule(arrives + 1000, () -> arrive(to, copy));
        }
        schedule(arrives, () -> arrive(to, packet));
    }

    private void arrive(Side to, ByteBuf packet) {
        try {
            if (to == b && listener != null && UdtPacket.isControl(packet) && UdtPacket.destination(packet) == 0) {
                if (b.conn != null) {
                    b.conn.onDatagram(packet, now);
                    b.drive();
                    return;
                }
                UdtListener.Answer answer = listener.onHandshake(packet, ADDRESS_A, now);
                if (answer.reply() != null) {
                    transmit(b, answer.reply());
                }
                if (answer.accept() != null) {
                    Handshake request = answer.accept();
                    b.conn = UdtConnection.accept(serverConfig, 0x2222, request, ADDRESS_A.getAddress(), now);
                    b.drive();
                }
                return;
            }
            if (to.conn != null) {
                to.conn.onDatagram(packet, now);
                to.drive();
            }
        } finally {
            packet.release();
        }
    }

    /** Runs events until {@code until} is true or virtual time passes {@code limitNanos}. */
    boolean runUntil(java.util.function.BooleanSupplier until, long limitNanos) {
        while (!until.getAsBoolean()) {
            Event e = events.poll();
            if (e == null || e.at > limitNanos) {
                if (e != null) {
                    events.add(e);
                }
                return until.getAsBoolean();
            }
            now = Math.max(now, e.at);
            e.action.run();
        }
        return true;
    }

    /** Writes on a side and sends. */
    void write(Side side, ByteBuf data) {
        side.conn.write(data);
        side.conn.flush(now);
        side.drive();
    }

    /** Closes both connections abruptly and releases what is queued anywhere. */
    void dispose() {
        for (Side s : new Side[] {a, b}) {
            if (s.conn != null) {
                s.conn.abort(now);
                s.conn.collect(new ConnectionSink() {
                    public void send(ByteBuf packet) {
                        packet.release();
                    }

                    public void connected() {
                    }

                    public void data(ByteBuf payload) {
                        payload.release();
                    }

                    public void endOfStream() {
                    }

                    public void writabilityChanged(boolean writable) {
                    }

                    public void closed(Throwable causeOrNull) {
                    }
                });
            }
        }
        for (Event e; (e = events.poll()) != null; ) {
            if (e.action instanceof Runnable) {
                // packets in flight are released by their arrival action; run them against closed connections
                now = Math.max(now, e.at);
                e.action.run();
            }
        }
    }
}
