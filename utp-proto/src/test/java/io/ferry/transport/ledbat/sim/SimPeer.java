package io.ferry.transport.ledbat.sim;

import io.ferry.transport.ledbat.core.ConnectionSink;
import io.ferry.transport.ledbat.core.UtpConfig;
import io.ferry.transport.ledbat.core.UtpConnection;
import io.ferry.transport.ledbat.core.UtpDemux;
import io.ferry.transport.ledbat.wire.PacketReader;
import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.PacketValidity;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.function.Consumer;

/**
 * One simulated host running one {@link UtpConnection}: it drives the connection's timer, sends a
 * given byte array as fast as the connection accepts it, and hashes what it receives. Its clock is
 * the simulation's plus a fixed offset, so the two peers' clocks disagree like real ones.
 */
public final class SimPeer implements ConnectionSink {
    private static final int WRITE_CHUNK = 16 * 1024;

    private final String name;
    private final EventQueue events;
    private final long clockOffsetNanos;
    private final PacketReader demuxReader = new PacketReader();
    private UtpConnection connection;
    private UtpConfig config;
    private Consumer<ByteBuf> wire;

    private byte[] toSend = new byte[0];
    private int sent;
    private boolean shutdownWhenSent;
    private boolean closeWhenDone;

    private final MessageDigest received = sha256();
    private long receivedBytes;
    private long unconsumed;
    private long maxUnconsumed;
    private int unwritableEvents;
    private int writableEvents;
    private long readRateBytesPerSec;
    private boolean readScheduled;

    private boolean connected;
    private boolean endOfStream;
    private boolean closed;
    private Throwable closeCause;
    private long closedAtNanos = -1;
    private long scheduledDeadline = Long.MAX_VALUE;
    private long timerGeneration;

    public SimPeer(String name, EventQueue events, long clockOffsetNanos) {
        this.name = name;
        this.events = events;
        this.clockOffsetNanos = clockOffsetNanos;
    }

    /** Where this peer's packets go. */
    public void attach(Consumer<ByteBuf> wire) {
        this.wire = wire;
    }

    public long now() {
        return events.now() + clockOffsetNanos;
    }

    public void connect(UtpConfig config, int recvId, int initialSeq) {
        this.config = config;
        connection = UtpConnection.connect(config, recvId, initialSeq, now());
        reschedule();
    }

    /** Called with every packet the link delivers; accepts the first SYN. */
    public void receive(ByteBuf packet, UtpConfig config, int initialSeq) {
        if (connection == null) {
            connection = UtpConnection.accept(config, packet, initialSeq, now());
            this.config = config;
            reschedule();
        } else {
            deliver(packet);
        }
    }

    public void receive(ByteBuf packet) {
        if (connection != null) {
            deliver(packet);
        }
    }

    /** Like a socket adapter: a terminated connection is unknown, so answer with a RESET. */
    private void deliver(ByteBuf packet) {
        if (connection.isTerminated()) {
            if (demuxReader.wrap(packet) == PacketValidity.VALID && demuxReader.type() != PacketType.RESET
                    && demuxReader.type() != PacketType.SYN) {
                wire.accept(UtpDemux.resetReply(config.allocator(), demuxReader, now()));
            }
            return;
        }
        connection.onPacket(packet, null, now());
        reschedule();
    }

    /** Sends {@code data} once connected; shuts the output down afterwards if asked to. */
    public void sendAll(byte[] data, boolean shutdownAfter) {
        this.toSend = data;
        this.sent = 0;
        this.shutdownWhenSent = shutdownAfter;
        if (connected) {
            pump();
            reschedule();
        }
    }

    /** Closes the connection gracefully once everything was sent and the peer's FIN arrived. */
    public void closeWhenDone() {
        this.closeWhenDone = true;
    }

    /** Consumes received data at {@code bytesPerSec} instead of at once (0 = at once). */
    public void readSlowly(long bytesPerSec) {
        this.readRateBytesPerSec = bytesPerSec;
    }

    public void close() {
        connection.close(now());
        reschedule();
    }

    public void abort() {
        connection.abort(now());
        reschedule();
    }

    public void shutdownOutput() {
        connection.shutdownOutput(now());
        reschedule();
    }

    private void pump() {
        if (closed || connection.streams().isOutputShutdown()) {
            return;
        }
        while (sent < toSend.length) {
            int len = Math.min(WRITE_CHUNK, toSend.length - sent);
            ByteBuf chunk = Unpooled.wrappedBuffer(toSend, sent, len);
            int n;
            try {
                n = connection.write(chunk);
            } finally {
                chunk.release();
            }
            sent += n;
            if (n < len) {
                break;
            }
        }
        connection.flush(now());
        if (!closed && sent == toSend.length && shutdownWhenSent) {
            connection.shutdownOutput(now());
        }
        maybeClose();
    }

    /** After every call into the connection: collect its output, then re-arm its one timer. */
    private void reschedule() {
        if (connection == null) {
            return;
        }
        connection.collect(this);
        long deadline = connection.nextDeadlineNanos();
        if (deadline == scheduledDeadline) {
            return;
        }
        scheduledDeadline = deadline;
        long generation = ++timerGeneration;
        if (deadline != Long.MAX_VALUE) {
            events.schedule(deadline - clockOffsetNanos, () -> {
                if (generation == timerGeneration) {
                    scheduledDeadline = Long.MAX_VALUE;
                    connection.onTimer(now());
                    reschedule();
                }
            });
        }
    }

    private void scheduleRead() {
        if (readScheduled || unconsumed == 0 || closed) {
            return;
        }
        readScheduled = true;
        long chunk = Math.max(1, readRateBytesPerSec / 100);
        events.schedule(events.now() + 10_000_000L, () -> {
            readScheduled = false;
            if (closed) {
                return;
            }
            int n = (int) Math.min(chunk, unconsumed);
            unconsumed -= n;
            connection.consumed(n, now());
            reschedule();
            scheduleRead();
        });
    }

    // ---- what the connection produced

    @Override
    public void send(ByteBuf packet) {
        wire.accept(packet);
    }

    @Override
    public void connected() {
        connected = true;
        if (connection != null) {
            pump();
        }
    }

    @Override
    public void data(ByteBuf data) {
        try {
            int n = data.readableBytes();
            received.update(data.nioBuffer());
            receivedBytes += n;
            if (readRateBytesPerSec > 0) {
                unconsumed += n;
                maxUnconsumed = Math.max(maxUnconsumed, unconsumed);
                scheduleRead();
            } else {
                connection.consumed(n, now());
            }
        } finally {
            data.release();
        }
    }

    @Override
    public void endOfStream() {
        endOfStream = true;
        maybeClose();
    }

    @Override
    public void writabilityChanged(boolean writable) {
        if (writable) {
            writableEvents++;
            pump();
        } else {
            unwritableEvents++;
        }
    }

    @Override
    public void closed(Throwable causeOrNull) {
        closed = true;
        closeCause = causeOrNull;
        closedAtNanos = events.now();
    }

    private void maybeClose() {
        if (closeWhenDone && endOfStream && sent == toSend.length && !closed) {
            connection.close(now());
        }
    }

    // ---- observations

    public UtpConnection connection() {
        return connection;
    }

    public String name() {
        return name;
    }

    public boolean isConnected() {
        return connected;
    }

    public boolean isEndOfStream() {
        return endOfStream;
    }

    public boolean isClosed() {
        return closed;
    }

    public Throwable closeCause() {
        return closeCause;
    }

    public long closedAtNanos() {
        return closedAtNanos;
    }

    public long receivedBytes() {
        return receivedBytes;
    }

    /** Largest amount of delivered but not yet consumed data held at once (slow reader only). */
    public long maxUnconsumed() {
        return maxUnconsumed;
    }

    public int unwritableEvents() {
        return unwritableEvents;
    }

    public int writableEvents() {
        return writableEvents;
    }

    public int sentBytes() {
        return sent;
    }

    /** Returns the SHA-256 of everything received so far (resets the digest). */
    public byte[] receivedDigest() {
        return received.digest();
    }

    public static byte[] sha256(byte[] data) {
        return sha256().digest(data);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
