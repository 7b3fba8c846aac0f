package io.ferry.transport.quic;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicConnectionPathStats;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.ScheduledFuture;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One QUIC connection and the Ferry connections it carries, one bidirectional stream each: one for a plain
 * {@code quic://} connection, N for the members of a striped one ({@link io.ferry.transport.FerryChannelOption#SHARED_CONNECTION}).
 * It routes the peer's receipts to their stream's channel, tells every channel when the connection ends, and
 * ends the connection once every channel on it has ended, with the close code their ends call for (as TCP ends
 * a closed socket): {@link QuicTransport#STOPPED} or {@link QuicTransport#NO_ERROR} at once when a channel closed
 * with bytes the peer did not confirm; a short drain when all ended cleanly; FIN-WAIT while one waits for the
 * peer's end. Confined to the connection's event loop.
 */
final class QuicConnection {

    static final AttributeKey<QuicConnection> KEY = AttributeKey.valueOf(QuicConnection.class, "connection");

    /** How one channel on the connection ended, as its close code would say it. */
    enum Ending {
        /** Its bytes confirmed, its peer's end in: the connection may drain and close with NO_ERROR. */
        CLEAN,
        /** Its bytes confirmed, its peer's end not yet in (FIN-WAIT-2). */
        WAITING,
        /** The peer's whole stream in, but not all of its own bytes confirmed: close now, NO_ERROR. */
        UNCONFIRMED,
        /** Neither: close now, STOPPED (a reset). */
        STOPPED
    }

    private final QuicTransport transport;
    private final QuicChannel quic;
    /** A client's own UDP socket, closed with the connection; null on a listener's. */
    private final Channel udp;
    private final Map<Long, QuicSocketChannel> byStream = new LinkedHashMap<>();
    private final Map<QuicSocketChannel, Ending> endings = new HashMap<>();
    private boolean closed;
    private boolean draining;
    private ScheduledFuture<?> finWait;

    QuicConnection(QuicTransport transport, QuicChannel quic, Channel udp) {
        this.transport = transport;
        this.quic = quic;
        this.udp = udp;
        quic.attr(KEY).set(this);
    }

    /** The connection a QUIC channel carries, or null if Ferry made none for it. */
    static QuicConnection of(QuicChannel quic) {
        return quic.attr(KEY).get();
    }

    QuicChannel quic() {
        return quic;
    }

    SocketAddress localAddress() {
        return udp != null ? udp.localAddress() : quic.localSocketAddress();
    }

    /** {@code member} presents the data stream {@code streamId}. */
    void add(QuicSocketChannel member, long streamId) {
        byStream.put(streamId, member);
    }

    /** The channel whose data stream is {@code streamId}, or null. */
    QuicSocketChannel member(long streamId) {
        return byStream.get(streamId);
    }

    /**
     * Whether {@code member} reports the connection's own figures (round trip, window, losses) in its statistics:
     * the first channel on it does, so that a striped channel summing its members' counts each connection once.
     */
    boolean reportsConnection(QuicSocketChannel member) {
        return byStream.isEmpty() || byStream.values().iterator().next() == member;
    }

    boolean isClosed() {
        return closed;
    }

    /** Whether every channel on the connection has its peer's end of stream (the transport's close then says NO_ERROR). */
    boolean allHavePeersEnd() {
        for (QuicSocketChannel m : byStream.values()) {
            if (!m.hasPeersEnd()) {
                return false;
            }
        }
        return true;
    }

    /** A channel on the connection closed and says how; the connection ends once every channel has. */
    void ended(QuicSocketChannel member, Ending ending) {
        endings.put(member, ending);
        if (closed || endings.size() < byStream.size()) {
            return;
        }
        boolean waiting = false;
        int code = -1;
        for (Ending e : endings.values()) {
            switch (e) {
                case STOPPED -> code = QuicTransport.STOPPED;
                case UNCONFIRMED -> code = Math.max(code, QuicTransport.NO_ERROR);
                case WAITING -> waiting = true;
                case CLEAN -> { }
            }
        }
        if (code >= 0) {
            close(code);
        } else if (waiting) {
            if (finWait == null) {
                finWait = quic.eventLoop().schedule(() -> close(QuicTransport.GONE),
                        QuicSocketChannel.FIN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } else if (!draining) {
            draining = true;
            cancelFinWait();
            transport.drain(quic, drainTime());
        }
    }

    /** Closes the connection now with {@code code}; every channel on it hears of the end. */
    void close(int code) {
        if (!closed) {
            closed = true;
            cancelFinWait();
            quic.close(true, code, Unpooled.EMPTY_BUFFER);
        }
    }

    /**
     * The codec ended the connection: {@code why} says how, null if without an error; {@code peerHasAll} when
     * the peer said it has every stream; {@code peerGone} when it had every byte and stopped waiting for the ends.
     */
    void ended(IOException why, boolean peerHasAll, boolean peerGone) {
        closed = true;
        cancelFinWait();
        if (udp != null) {
            udp.close();
        }
        for (QuicSocketChannel m : new ArrayList<>(byStream.values())) {
            m.connectionClosed(why, peerHasAll, peerGone);
        }
    }

    private void cancelFinWait() {
        if (finWait != null) {
            finWait.cancel(false);
            finWait = null;
        }
    }

    /** Four round trips (two probe timeouts), at least 100 ms and at most 2 s. */
    private long drainTime() {
        QuicConnectionPathStats path = quic.isActive() ? quic.collectPathStats(0).getNow() : null;
        long rttMillis = path == null ? 100 : path.rtt() / 1_000_000;
        return Math.max(100, Math.min(2_000, 4 * rttMillis));
    }
}
