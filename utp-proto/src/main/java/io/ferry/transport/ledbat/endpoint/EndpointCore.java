package io.ferry.transport.ledbat.endpoint;

import io.ferry.transport.ledbat.core.UtpConnection;
import io.ferry.transport.ledbat.core.UtpDemux;
import io.ferry.transport.ledbat.wire.PacketReader;
import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.PacketValidity;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntSupplier;

/**
 * What one UDP socket's uTP endpoint does with a datagram, without I/O and without a clock: the
 * connection table, the routing rules of BEP 29, SYN admission and the RESET limiter. The driver calls
 * {@link #handle} for each datagram and acts on the {@link Outcome}; time comes in as {@code nowNanos}, so
 * floods and forgeries are tested in virtual time.
 *
 * <p>With the SYN cache on, a new SYN that meets a full half-open limit is answered without a connection:
 * the answer is built from the SYN alone and the handshake kept in a few dozen bytes ({@link SynCache}).
 * A packet that acknowledges that answer then makes the connection, evicting this socket's oldest
 * half-open one (ended without a word, since its initiator never proved its address; remembered in the
 * cache too). A flood's SYNs thus cost a record and a 20-byte answer each, not a connection, and a
 * legitimate client connects while the flood lasts. Without the cache such a SYN is dropped.
 *
 * <p>One thread per instance (the socket's event loop); {@link #startAccepting} and {@link #stopAccepting}
 * may be called from any thread (a listener becomes ready before its sockets' loops run a task), and the
 * counters may be read from any thread.
 *
 * @param <C> the driver's handle for a connection (its channel)
 */
public final class EndpointCore<C> {

    /** What the driver does with a datagram it handed to {@link #handle}. */
    public enum Outcome {
        /** Hand the datagram to {@link #target()}'s connection. */
        ROUTE,
        /**
         * A handshake was admitted: set up a connection from {@link #handshake()} and {@link #accepted} it,
         * or {@link #withdraw} the admission. If {@link Handshake#revived()}, the datagram is then the new
         * connection's.
         */
        ACCEPT,
        /** Send {@link #takeResponse()} back to the sender: a RESET, or a handshake answer from the SYN cache. */
        RESPOND,
        /** Nothing to do (malformed, a RESET for nobody, a flood's SYN, or a RESET over the rate); counted. */
        DROP,
        /**
         * Another socket of this listener routes the datagram's connection ({@link Siblings}; the kernel's
         * spread of peers over the sockets changed): hand the datagram to it, by {@link #handOverId()}.
         */
        HAND_OVER
    }

    /**
     * The other sockets of this endpoint's listener, bound to one port with {@code SO_REUSEPORT}: whether
     * one of them routes the connection {@code connectionId} from {@code from}. Asked only for packets this
     * socket's table misses, so a peer the kernel moves to another socket keeps its connection instead of
     * drawing a RESET here.
     */
    @FunctionalInterface
    public interface Siblings {
        Siblings NONE = (from, connectionId) -> false;

        boolean route(InetSocketAddress from, int connectionId);
    }

    /**
     * What an {@link Outcome#ACCEPT} sets up: a fresh SYN (the datagram itself; {@code seqNr} is -1, the
     * driver draws one), or a handshake from the SYN cache that the datagram confirmed (the SYN as
     * remembered and the sequence number this side answered it with): answered from the cache, or evicted.
     */
    public record Handshake(ByteBuf syn, int seqNr, boolean revived) {
    }

    /** A RESET may carry either id of the pair (BEP 29 implementations differ): try both neighbours. */
    private static final int[] RESET_ID_DELTAS = {0, 1, -1};
    /**
     * Handshakes the SYN cache holds per socket: at about 200 bytes of heap each, 13 MiB at most, and
     * about a second of a 65,000 SYN/s flood, the time an initiator takes to resend a lost SYN or confirmation.
     */
    static final int SYN_CACHE_ENTRIES = 65_536;

    /** How a listener answers a SYN it keeps no connection for (see {@code SynAnswer}). */
    @FunctionalInterface
    public interface SynAnswerer {
        /** The answer to {@code syn} carrying {@code seqNr}; ownership passes to the caller. */
        ByteBuf answer(ByteBuf syn, int seqNr, long nowNanos);
    }

    private final Function<C, UtpConnection> connectionOf;
    private final Function<C, InetSocketAddress> remoteOf;
    private final Consumer<C> onEvicted;
    private final boolean synCache;
    private final ConnectionTable<C> table;
    private final PacketReader reader = new PacketReader();
    private final ResetLimiter resets;
    /** Accepted connections whose initiator has not yet proven its address, oldest first, with their SYNs. */
    private final Map<C, byte[]> halfOpen = new LinkedHashMap<>();
    private final SynCache cache;
    /** This side's first sequence numbers for the handshakes answered from the cache. */
    private final java.util.SplittableRandom isn;
    private volatile SynAnswerer answerer;
    /** Accepted connections whose initiator proved its address and that are not yet forgotten. */
    private final Set<C> established = new HashSet<>();
    private volatile Admission admission;
    private volatile boolean accepting;
    private InetSocketAddress admitted;
    private Handshake handshake;
    private volatile long revived;
    private volatile long cacheAnswers;
    private C target;
    private ByteBuf response;
    private volatile long malformed;
    private volatile long unknown;
    private volatile Siblings siblings = Siblings.NONE;
    private int handOverId;
    private int handshakeRecvId;

    /**
     * @param connectionOf the protocol state of a connection handle
     * @param remoteOf     the peer of a connection handle
     * @param salt         the secret that hashes the table's keys
     * @param resetRate    RESETs per second until {@link #startAccepting} sets the listener's
     * @param onEvicted    told of each half-open connection evicted to make room for a confirmed one, after the table forgot it
     * @param synCache     whether a SYN that meets a full half-open limit is answered from the SYN cache
     *                     (else it is dropped)
     */
    public EndpointCore(Function<C, UtpConnection> connectionOf, Function<C, InetSocketAddress> remoteOf, long salt,
                        int resetRate, Consumer<C> onEvicted, boolean synCache) {
        this.connectionOf = connectionOf;
        this.remoteOf = remoteOf;
        this.onEvicted = onEvicted;
        this.synCache = synCache;
        this.table = new ConnectionTable<>(salt);
        this.cache = new SynCache(SYN_CACHE_ENTRIES, salt);
        this.isn = new java.util.SplittableRandom(salt * 0x9E3779B97F4A7C15L);
        this.resets = new ResetLimiter(resetRate);
    }

    /**
     * New SYNs from now on are admitted by {@code admission} (shared by the listener's sockets), and
     * answered by {@code answerer} when the SYN cache takes them. Any thread.
     */
    public void startAccepting(Admission admission, int resetRate, SynAnswerer answerer) {
        resets.rate(resetRate);
        this.answerer = answerer;
        this.admission = admission;
        this.accepting = true;
    }

    /** The listener's other sockets, asked before a packet for an unknown connection is answered. Any thread. */
    public void siblings(Siblings others) {
        siblings = others;
    }

    /** The connection id the last {@link Outcome#HAND_OVER} found on another socket. */
    public int handOverId() {
        return handOverId;
    }

    /** New SYNs from now on are answered as packets for unknown connections; accepted ones live on. Any thread. */
    public void stopAccepting() {
        accepting = false;
    }

    public boolean isAccepting() {
        return accepting;
    }

    /**
     * The header of the datagram {@link #handle} last routed, as it parsed it, for the connection to handle without
     * parsing it again ({@code UtpConnection.onPacket(ByteBuf, PacketReader, long)}); valid until the next call.
     */
    public PacketReader parsed() {
        return reader;
    }

    /**
     * Decides what a received datagram is for. After {@link Outcome#ROUTE} the connection is
     * {@link #target()}; after {@link Outcome#RESPOND} the reply is {@link #takeResponse()}. The datagram
     * stays the caller's.
     */
    public Outcome handle(ByteBuf datagram, InetSocketAddress from, long nowNanos) {
        target = null;
        if (admitted != null) {
            throw new IllegalStateException("the last ACCEPT was neither accepted nor withdrawn");
        }
        if (reader.wrap(datagram) != PacketValidity.VALID) {
            malformed++;
            return Outcome.DROP;
        }
        PacketType type = reader.type();
        if (type == PacketType.SYN) {
            int recvId = UtpDemux.synRecvId(reader);
            C existing = table.get(from, recvId);
            if (existing != null) {
                return route(existing); // a retransmitted SYN
            }
            if (siblings.route(from, recvId)) {
                return handOver(recvId); // a retransmitted SYN whose connection another socket holds
            }
            if (!accepting) {
                unknown++;
                return respond(datagram, from, nowNanos);
            }
            if (synCache && admission.halfOpenFull()) {
                return answerFromCache(datagram, from, recvId, nowNanos);
            }
            return admit(datagram, from, nowNanos, new Handshake(datagram, -1, false), recvId);
        }
        if (type == PacketType.RESET) {
            int id = reader.connectionId();
            for (int delta : RESET_ID_DELTAS) {
                C candidate = table.get(from, (id + delta) & 0xFFFF);
                if (candidate != null && connectionOf.apply(candidate).ids().acceptsReset(id)) {
                    return route(candidate);
                }
            }
            for (int delta : RESET_ID_DELTAS) {
                if (siblings.route(from, (id + delta) & 0xFFFF)) {
                    return handOver((id + delta) & 0xFFFF);
                }
            }
            unknown++; // never answer a RESET
            return Outcome.DROP;
        }
        C owner = table.get(from, reader.connectionId());
        if (owner != null) {
            return route(owner);
        }
        if (siblings.route(from, reader.connectionId())) {
            return handOver(reader.connectionId());
        }
        SynCache.Entry cached = accepting ? cache.take(from, reader.connectionId(), reader.ackNr()) : null;
        if (cached != null) {
            revived++;
            return admit(datagram, from, nowNanos, new Handshake(Unpooled.wrappedBuffer(cached.syn()), cached.seqNr(), true),
                    reader.connectionId());
        }
        unknown++;
        return respond(datagram, from, nowNanos);
    }

    /**
     * Answers a SYN from the cache: a repeated SYN gets the answer it got before (its first may have been
     * lost), a new one an answer with a fresh sequence number, remembered.
     */
    private Outcome answerFromCache(ByteBuf datagram, InetSocketAddress from, int recvId, long nowNanos) {
        SynCache.Entry known = cache.peek(from, recvId);
        int seqNr;
        if (known != null && known.synSeqNr() == reader.seqNr()) {
            seqNr = known.seqNr();
        } else {
            seqNr = isn.nextInt(1 << 16);
            cache.remember(from, recvId, new SynCache.Entry(ByteBufUtil.getBytes(datagram), seqNr));
        }
        cacheAnswers++;
        response = answerer.answer(datagram, seqNr, nowNanos);
        return Outcome.RESPOND;
    }

    private Outcome admit(ByteBuf datagram, InetSocketAddress from, long nowNanos, Handshake h, int recvId) {
        switch (admission.admit(from.getAddress(), synCache ? this::evictOldest : () -> false)) {
            case ADMIT:
                admitted = from;
                handshake = h;
                handshakeRecvId = recvId;
                return Outcome.ACCEPT;
            case REFUSE:
                return respond(datagram, from, nowNanos);
            default:
                return Outcome.DROP; // a flood that filled the limit on other sockets gets no answer at all
        }
    }

    /** What the last {@link Outcome#ACCEPT} is to set up. */
    public Handshake handshake() {
        return handshake;
    }

    /** The id this side will receive on for the last {@link Outcome#ACCEPT} (what routes its peer's packets). */
    public int handshakeRecvId() {
        return handshakeRecvId;
    }

    private Outcome handOver(int connectionId) {
        handOverId = connectionId;
        return Outcome.HAND_OVER;
    }

    private Outcome route(C connection) {
        target = connection;
        return Outcome.ROUTE;
    }

    private Outcome respond(ByteBuf datagram, InetSocketAddress to, long nowNanos) {
        if (!resets.tryAcquire(nowNanos)) {
            return Outcome.DROP;
        }
        response = UtpDemux.resetReply(datagram.alloc(), reader, nowNanos);
        return Outcome.RESPOND;
    }

    /** The connection the last {@link Outcome#ROUTE} names. */
    public C target() {
        return target;
    }

    /** What the last {@link Outcome#RESPOND} asked to send; ownership passes to the caller. */
    public ByteBuf takeResponse() {
        ByteBuf r = response;
        response = null;
        return r;
    }

    /** The connection set up for the last {@link Outcome#ACCEPT}: routed from now on, half-open until {@link #promoted}. */
    public void accepted(C connection) {
        requireAdmitted();
        admitted = null;
        table.put(remoteOf.apply(connection), connectionOf.apply(connection).ids().recvId(), connection);
        halfOpen.put(connection, synCache ? ByteBufUtil.getBytes(handshake.syn()) : null);
        handshake = null;
    }

    /** The last {@link Outcome#ACCEPT} is not taken here (handed to another socket, or set-up failed): its place is freed. */
    public void withdraw() {
        requireAdmitted();
        admission.withdrawn(admitted.getAddress());
        admitted = null;
        handshake = null;
    }

    private void requireAdmitted() {
        if (admitted == null) {
            throw new IllegalStateException("no SYN is waiting to be accepted");
        }
    }

    /** An accepted connection's initiator proved its address (it is the application's now). */
    public void promoted(C connection) {
        if (halfOpen.containsKey(connection)) {
            halfOpen.remove(connection);
            established.add(connection);
            admission.promoted();
        }
    }

    /** A connection this side opened: routed from now on. */
    public void register(C connection) {
        table.put(remoteOf.apply(connection), connectionOf.apply(connection).ids().recvId(), connection);
    }

    /** A connection is over: it is routed no more and, if accepted, frees its place. Returns whether the table had it. */
    public boolean forget(C connection) {
        InetSocketAddress remote = remoteOf.apply(connection);
        boolean had = table.remove(remote, connectionOf.apply(connection).ids().recvId(), connection);
        release(connection, remote);
        return had;
    }

    /** Forgets every connection (the socket closed) and returns them. */
    public List<C> forgetAll() {
        List<C> all = new ArrayList<>(table.values());
        table.clear();
        for (C c : all) {
            release(c, remoteOf.apply(c));
        }
        halfOpen.clear();
        established.clear();
        cache.clear();
        return all;
    }

    private void release(C connection, InetSocketAddress remote) {
        if (halfOpen.containsKey(connection)) {
            halfOpen.remove(connection);
            admission.released(remote.getAddress(), true);
        } else if (established.remove(connection)) {
            admission.released(remote.getAddress(), false);
        }
    }

    private boolean evictOldest() {
        Iterator<Map.Entry<C, byte[]>> oldest = halfOpen.entrySet().iterator();
        if (!oldest.hasNext()) {
            return false;
        }
        Map.Entry<C, byte[]> entry = oldest.next();
        C victim = entry.getKey();
        oldest.remove();
        InetSocketAddress remote = remoteOf.apply(victim);
        UtpConnection connection = connectionOf.apply(victim);
        table.remove(remote, connection.ids().recvId(), victim);
        cache.remember(remote, connection.ids().recvId(), new SynCache.Entry(entry.getValue(), connection.handshakeSeqNr()));
        admission.evicted(remote.getAddress());
        onEvicted.accept(victim);
        return true;
    }

    /** A receive id not in use towards {@code remote}, for both ids of the pair. */
    public int newConnectionId(InetSocketAddress remote, IntSupplier random16) {
        return table.newConnectionId(remote, random16);
    }

    /** Whether {@code connection} is accepted and still half-open here. */
    public boolean isHalfOpen(C connection) {
        return halfOpen.containsKey(connection);
    }

    /** The connections routed now (a read-only view). */
    public Collection<C> connections() {
        return table.values();
    }

    public boolean isEmpty() {
        return table.size() == 0;
    }

    /** Datagrams dropped because they were not valid uTP packets. */
    public long malformedDropped() {
        return malformed;
    }

    /** Valid packets for connections this endpoint does not have (answered with a RESET, rate permitting, unless a RESET). */
    public long unknownConnectionPackets() {
        return unknown;
    }

    /** Connections made from the SYN cache by a packet that confirmed their answer. */
    public long revivedHandshakes() {
        return revived;
    }

    /** SYNs answered from the SYN cache (the half-open places were full). */
    public long synCacheAnswers() {
        return cacheAnswers;
    }

    /** RESETs not sent because the second's were spent. */
    public long resetsSuppressed() {
        return resets.suppressed();
    }
}
