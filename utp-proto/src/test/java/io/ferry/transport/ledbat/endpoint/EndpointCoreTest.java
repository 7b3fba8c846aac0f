package io.ferry.transport.ledbat.endpoint;

import io.ferry.transport.conformance.LeakDetectionExtension;
import io.ferry.transport.ledbat.core.SynAnswer;
import io.ferry.transport.ledbat.core.UtpConfig;
import io.ferry.transport.ledbat.core.UtpConnection;
import io.ferry.transport.ledbat.endpoint.EndpointCore.Outcome;
import io.ferry.transport.ledbat.sim.EventQueue;
import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.PacketWriter;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The endpoint's routing, admission and RESET limiter under attack, in virtual time: a sustained flood of
 * spoofed SYNs while a real client connects, forged RESETs, packets for unknown connections at a high rate,
 * malformed datagrams. The listener's loopback tests (transport-ledbat) keep a smoke of the same on real sockets.
 */
@ExtendWith(LeakDetectionExtension.class)
class EndpointCoreTest {

    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    private static final int RESET_RATE = 200;
    private static final InetSocketAddress CLIENT = address("192.0.2.7", 6881);

    /** The driver's handle for a connection: what the endpoint routes to. */
    private record Conn(InetSocketAddress remote, UtpConnection utp) {
    }

    /** The first few connections evicted, and how many in all; each is ended as a driver would. */
    private final List<Conn> evicted = new ArrayList<>();
    private long evictions;

    /** The listener's answer from its SYN cache, as the transport builds it. */
    private static ByteBuf answer(ByteBuf syn, int seqNr, long now) {
        return SynAnswer.build(UtpConfig.defaults(), syn, seqNr, now);
    }

    private EndpointCore<Conn> core(long salt) {
        return core(salt, true);
    }

    private EndpointCore<Conn> core(long salt, boolean evict) {
        return new EndpointCore<>(Conn::utp, Conn::remote, salt, RESET_RATE, c -> {
            evictions++;
            if (evicted.size() < 10) {
                evicted.add(c);
            }
            c.utp().abort(0);
            c.utp().releaseUncollected();
        }, evict);
    }

    /**
     * A flood of spoofed SYNs fills the listener's 1024 half-open places at once; from then on every SYN
     * is answered from the SYN cache without a connection. A real client connects while the flood lasts:
     * its confirmation of the cached answer makes its connection, evicting the oldest half-open one.
     */
    @ParameterizedTest(name = "{0} SYN/s, client RTT {1} ms")
    @CsvSource({"100000, 2", "10000, 40"})
    void aClientConnectsWithinASecondWhileASynFloodLasts(long floodRate, long rttMillis) {
        Admission admission = new Admission(1024, 16_384, 256);
        EndpointCore<Conn> server = core(1);
        server.startAccepting(admission, RESET_RATE, EndpointCoreTest::answer);
        EventQueue events = new EventQueue(0);
        SplittableRandom random = new SplittableRandom(2026);
        long[] floodSyns = {0};
        long[] floodAnswers = {0};
        long[] maxHalfOpen = {0};
        long floodEnd = 700 * MS; // the client starts at 300 ms: the places have turned over 3 to 30 times by then
        for (long t = 0; t < floodEnd; t += SECOND / floodRate) {
            events.schedule(t, () -> {
                int a = random.nextInt(1000);
                InetSocketAddress spoofed = address("10.9." + (a >> 8) + "." + (a & 0xFF), 1024 + random.nextInt(60_000));
                ByteBuf syn = syn(random.nextInt(1 << 16), random.nextInt(1 << 16), events.now());
                floodAnswers[0] += serve(server, syn, spoofed, events.now(), packet -> packet.release());
                syn.release();
                floodSyns[0]++;
                maxHalfOpen[0] = Math.max(maxHalfOpen[0], admission.halfOpen());
            });
        }
        long oneWay = rttMillis * MS / 2;
        long start = 300 * MS;
        Client client = new Client(events, p -> {
            ByteBuf copy = p;
            events.schedule(events.now() + oneWay, () -> {
                serve(server, copy, CLIENT, events.now(), null);
                copy.release();
            });
        });
        long[] promotedAt = {-1};
        clientSink = packet -> events.schedule(events.now() + oneWay, () -> client.receive(packet));
        events.schedule(start, client::start);
        onPromoted = () -> promotedAt[0] = events.now();
        events.runUntil(() -> false, floodEnd);

        System.out.printf("SYN flood in virtual time, client RTT " + rttMillis + " ms: %d SYNs in %.1f s, %d answered (%d from the SYN cache),"
                        + " %d evicted, %d dropped, half-open at most %d; the client connected %.0f ms after its first SYN%n",
                floodSyns[0], floodEnd / (double) SECOND, floodAnswers[0], server.synCacheAnswers(), admission.evicted(),
                admission.dropped(), maxHalfOpen[0], (promotedAt[0] - start) / (double) MS);
        assertTrue(promotedAt[0] > 0, "the client's connection was accepted and promoted while the flood lasted");
        assertTrue(promotedAt[0] - start < SECOND, "within a second: " + (promotedAt[0] - start) / MS + " ms");
        assertTrue(client.connected, "the client saw the handshake complete");
        assertEquals(1024, maxHalfOpen[0], "the flood kept the half-open limit full");
        assertTrue(server.synCacheAnswers() > floodSyns[0] / 2, "the flood's SYNs were answered from the cache: " + server.synCacheAnswers());
        assertEquals(1, server.revivedHandshakes(), "the client's connection was made from the cache");
        assertEquals(1, admission.evicted(), "the oldest half-open entry made way for it, and no other");
        assertEquals(admission.evicted(), evictions, "the driver was told of every eviction");
        assertEquals(0, admission.dropped());
        assertTrue(floodAnswers[0] <= floodSyns[0], "one answer per spoofed SYN at most, while it is half-open");
        assertEquals(1, admission.established());
        for (Conn c : server.forgetAll()) {
            c.utp().abort(events.now());
            c.utp().releaseUncollected();
        }
        client.release();
        assertEquals(0, admission.halfOpen());
        assertEquals(0, admission.established());
    }

    /**
     * The flood's queue drops the client's confirmation and first data; the data it resends one RTO later
     * acknowledges the server's cached answer and makes the connection instead of drawing a RESET.
     */
    @Test
    void aClientWhoseConfirmationIsLostInTheFloodIsRevivedByItsNextPacket() {
        Admission admission = new Admission(1024, 16_384, 256);
        EndpointCore<Conn> server = core(1);
        server.startAccepting(admission, RESET_RATE, EndpointCoreTest::answer);
        EventQueue events = new EventQueue(0);
        SplittableRandom random = new SplittableRandom(2026);
        long floodEnd = 2 * SECOND;
        for (long t = 0; t < floodEnd; t += SECOND / 10_000) {
            events.schedule(t, () -> {
                int a = random.nextInt(1000);
                InetSocketAddress spoofed = address("10.9." + (a >> 8) + "." + (a & 0xFF), 1024 + random.nextInt(60_000));
                ByteBuf syn = syn(random.nextInt(1 << 16), random.nextInt(1 << 16), events.now());
                serve(server, syn, spoofed, events.now(), packet -> packet.release());
                syn.release();
            });
        }
        long oneWay = 20 * MS;
        long start = 300 * MS;
        int[] sentByClient = {0};
        Client client = new Client(events, p -> {
            if (++sentByClient[0] > 1 && events.now() < start + 200 * MS) {
                p.release(); // lost in the flood's overfilled queue: everything after the SYN, for 200 ms
                return;
            }
            events.schedule(events.now() + oneWay, () -> {
                serve(server, p, CLIENT, events.now(), null);
                p.release();
            });
        });
        long[] promotedAt = {-1};
        clientSink = packet -> events.schedule(events.now() + oneWay, () -> client.receive(packet));
        onPromoted = () -> promotedAt[0] = events.now();
        events.schedule(start, client::start);
        events.runUntil(() -> false, floodEnd);

        System.out.printf("SYN flood in virtual time, the client's confirmation lost: promoted %.0f ms after its first SYN,"
                + " %d handshakes revived%n", (promotedAt[0] - start) / (double) MS, server.revivedHandshakes());
        assertTrue(sentByClient[0] > 2, "the client's confirmation was dropped and it sent again");
        assertTrue(promotedAt[0] > start + 200 * MS, "the connection was accepted once its resent packet arrived");
        assertTrue(promotedAt[0] - start < SECOND, "within a second: " + (promotedAt[0] - start) / MS + " ms");
        assertEquals(1, server.revivedHandshakes(), "the client's handshake, answered from the cache, was confirmed");
        assertTrue(client.connected && !client.utp.isTerminated(), "the client was not reset");
        assertEquals(1, admission.established());
        releaseAll(server);
        client.release();
        assertEquals(0, admission.halfOpen());
    }

    /**
     * A flooder knows the addresses and ids of its own SYNs but not the server's answers: a packet that
     * does not acknowledge the cached answer makes nothing, draws the ordinary RESET, and uses up the
     * remembered handshake, so each guess costs one SYN and has one chance in 65,536.
     */
    @Test
    void aGuessedConfirmationMakesNothingAndSpendsTheCachedHandshake() {
        Admission admission = new Admission(1, 100, 100);
        EndpointCore<Conn> server = core(4);
        server.startAccepting(admission, RESET_RATE, EndpointCoreTest::answer);
        serve(server, syn(30, 1000, 0), address("10.0.0.3", 5000), 0, p -> p.release()); // the one half-open place
        InetSocketAddress spoofed = address("10.0.0.1", 5000);
        ByteBuf syn = syn(40, 1000, 0);
        assertEquals(Outcome.RESPOND, server.handle(syn, spoofed, 0), "answered from the cache");
        ByteBuf answer = server.takeResponse();
        int answered = answer.getUnsignedShort(16);
        assertEquals(1000, answer.getUnsignedShort(18), "the answer acknowledges the SYN");
        answer.release();
        assertEquals(Outcome.RESPOND, server.handle(syn, spoofed, 0), "a repeated SYN is answered again");
        ByteBuf again = server.takeResponse();
        assertEquals(answered, again.getUnsignedShort(16), "with the same sequence number");
        again.release();
        syn.release();
        assertEquals(2, server.synCacheAnswers());
        ByteBuf guess = header(PacketType.STATE, 41, 1000, answered + 100);
        assertEquals(Outcome.RESPOND, server.handle(guess, spoofed, MS), "a wrong acknowledgement is a packet for nobody");
        server.takeResponse().release();
        guess.release();
        ByteBuf right = header(PacketType.STATE, 41, 1000, answered - 1);
        assertEquals(Outcome.RESPOND, server.handle(right, spoofed, 2 * MS), "the handshake was spent on the guess");
        server.takeResponse().release();
        right.release();
        assertEquals(0, server.revivedHandshakes());
        assertEquals(0, admission.established());
        releaseAll(server);
    }

    @Test
    void withoutTheSynCacheTheFloodKeepsTheClientOutWhileItLasts() {
        Admission admission = new Admission(1024, 16_384, 256);
        EndpointCore<Conn> server = core(1, false);
        server.startAccepting(admission, RESET_RATE, EndpointCoreTest::answer);
        EventQueue events = new EventQueue(0);
        SplittableRandom random = new SplittableRandom(2026);
        for (long t = 0; t < 700 * MS; t += SECOND / 10_000) {
            events.schedule(t, () -> {
                int a = random.nextInt(1000);
                InetSocketAddress spoofed = address("10.9." + (a >> 8) + "." + (a & 0xFF), 1024 + random.nextInt(60_000));
                ByteBuf syn = syn(random.nextInt(1 << 16), random.nextInt(1 << 16), events.now());
                serve(server, syn, spoofed, events.now(), packet -> packet.release());
                syn.release();
            });
        }
        long oneWay = 20 * MS;
        Client client = new Client(events, p -> events.schedule(events.now() + oneWay, () -> {
            serve(server, p, CLIENT, events.now(), null);
            p.release();
        }));
        long[] promotedAt = {-1};
        clientSink = packet -> events.schedule(events.now() + oneWay, () -> client.receive(packet));
        onPromoted = () -> promotedAt[0] = events.now();
        events.schedule(300 * MS, client::start);
        events.runUntil(() -> false, 700 * MS);
        assertEquals(-1, promotedAt[0], "no place for the client's SYN while the flood holds every half-open one");
        assertTrue(admission.dropped() > 0);
        assertEquals(0, admission.evicted());
        releaseAll(server);
        client.release();
    }

    @Test
    void aConfirmedCachedHandshakeEvictsTheOldestHalfOpenConnectionOfItsSocket() {
        Admission admission = new Admission(4, 100, 100);
        EndpointCore<Conn> first = core(1);
        EndpointCore<Conn> second = core(2);
        first.startAccepting(admission, RESET_RATE, EndpointCoreTest::answer);
        second.startAccepting(admission, RESET_RATE, EndpointCoreTest::answer);
        for (int i = 0; i < 4; i++) {
            assertEquals(1, serve(first, synFrom(i), address("10.0.0." + i, 5000), 0, p -> p.release()));
        }
        // At the limit every socket of the listener answers from its cache.
        InetSocketAddress ninth = address("10.0.0.9", 5000);
        int toNinth = answerFromCache(second, synFrom(9), ninth);
        InetSocketAddress tenth = address("10.0.0.10", 5000);
        int toTenth = answerFromCache(first, synFrom(10), tenth);
        assertEquals(0, admission.dropped());
        assertEquals(0, admission.evicted());
        // The other socket has no half-open connection of its own to end: the confirmation finds no place.
        ByteBuf confirmNinth = header(PacketType.STATE, 1010, 1, toNinth - 1);
        assertEquals(Outcome.DROP, second.handle(confirmNinth, ninth, MS));
        confirmNinth.release();
        assertEquals(1, admission.dropped());
        // On the socket that holds them, the oldest makes way for the confirmed one.
        ByteBuf confirmTenth = header(PacketType.STATE, 1011, 1, toTenth - 1);
        assertEquals(Outcome.ACCEPT, first.handle(confirmTenth, tenth, MS));
        EndpointCore.Handshake h = first.handshake();
        assertTrue(h.revived());
        assertEquals(toTenth, h.seqNr());
        Conn conn = new Conn(tenth, UtpConnection.revive(UtpConfig.defaults(), h.syn(), h.seqNr(), MS));
        first.accepted(conn);
        conn.utp().onPacket(confirmTenth, null, MS);
        confirmTenth.release();
        assertTrue(conn.utp().isPeerConfirmed());
        first.promoted(conn);
        assertEquals(1, admission.evicted());
        assertEquals(address("10.0.0.0", 5000), evicted.get(0).remote(), "the oldest went first");
        assertEquals(3, admission.halfOpen());
        assertEquals(1, admission.established());
        releaseAll(first);
        releaseAll(second);
        assertEquals(0, admission.halfOpen());
    }

    /** Hands {@code syn} to {@code server}, expects its answer from the cache and returns the sequence number it carries. */
    private static int answerFromCache(EndpointCore<Conn> server, ByteBuf syn, InetSocketAddress from) {
        assertEquals(Outcome.RESPOND, server.handle(syn, from, 0));
        syn.release();
        ByteBuf answer = server.takeResponse();
        assertEquals(PacketType.STATE.ordinal(), answer.getUnsignedByte(0) >> 4, "a handshake answer, not a RESET");
        int seqNr = answer.getUnsignedShort(16);
        answer.release();
        return seqNr;
    }

    @Test
    void packetsForUnknownConnectionsGetAtMostTheResetRateAndResetsAreNeverAnswered() {
        EndpointCore<Conn> server = core(3);
        long sent = 0;
        long answered = 0;
        for (long t = 0; t < 3 * SECOND; t += SECOND / 5_000) {
            ByteBuf state = header(PacketType.STATE, (int) (sent & 0xFFFF), 1, 1);
            Outcome outcome = server.handle(state, address("10.1.0.1", 4000), t);
            if (outcome == Outcome.RESPOND) {
                ByteBuf reset = server.takeResponse();
                assertEquals(PacketType.RESET.code() << 4 | UtpWire.VERSION, reset.getUnsignedByte(0) & 0xFF);
                reset.release();
                answered++;
            } else {
                assertEquals(Outcome.DROP, outcome);
            }
            state.release();
            sent++;
            ByteBuf reset = header(PacketType.RESET, (int) (sent & 0xFFFF), 1, 1);
            assertEquals(Outcome.DROP, server.handle(reset, address("10.1.0.1", 4000), t), "a RESET is never answered");
            reset.release();
        }
        assertEquals(3 * RESET_RATE, answered, "the rate per virtual second");
        assertEquals(sent - answered, server.resetsSuppressed());
        assertEquals(2 * sent, server.unknownConnectionPackets());
    }

    /**
     * A connection another socket of the listener routes (the kernel moved its peer): its data, its RESET
     * and its retransmitted SYN are handed over, never answered with a RESET here, and nothing else is.
     */
    @Test
    void packetsForAConnectionOfAnotherSocketAreHandedOverNotReset() {
        EndpointCore<Conn> server = core(6);
        server.startAccepting(new Admission(8, 8, 8), RESET_RATE, EndpointCoreTest::answer);
        server.siblings((from, id) -> from.equals(CLIENT) && id == 101);
        ByteBuf data = header(PacketType.DATA, 101, 5, 1);
        assertEquals(Outcome.HAND_OVER, server.handle(data, CLIENT, 0));
        assertEquals(101, server.handOverId());
        assertEquals(Outcome.RESPOND, server.handle(data, address("192.0.2.8", 6881), 1), "the same id from another peer is unknown");
        server.takeResponse().release();
        data.release();
        ByteBuf reset = header(PacketType.RESET, 100, 1, 1);
        assertEquals(Outcome.HAND_OVER, server.handle(reset, CLIENT, 2), "a RESET with the other id of the pair");
        assertEquals(101, server.handOverId());
        reset.release();
        ByteBuf syn = syn(100, 1, 0);
        assertEquals(Outcome.HAND_OVER, server.handle(syn, CLIENT, 3), "a retransmitted SYN, not a second connection");
        syn.release();
        ByteBuf other = syn(200, 1, 0);
        assertEquals(Outcome.ACCEPT, server.handle(other, CLIENT, 4), "a new SYN is admitted here");
        assertEquals(201, server.handshakeRecvId());
        server.withdraw();
        other.release();
        assertEquals(1, server.unknownConnectionPackets());
        releaseAll(server);
    }

    @Test
    void malformedDatagramsAreDroppedAndCounted() {
        EndpointCore<Conn> server = core(4);
        ByteBuf[] bad = {Unpooled.wrappedBuffer(new byte[3]), Unpooled.wrappedBuffer(new byte[20]),
                Unpooled.wrappedBuffer(new byte[]{(byte) 0x42, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})};
        for (ByteBuf b : bad) {
            assertEquals(Outcome.DROP, server.handle(b, CLIENT, 0));
            b.release();
        }
        assertEquals(3, server.malformedDropped());
        assertEquals(0, server.unknownConnectionPackets());
    }

    @Test
    void aResetIsRoutedOnlyFromThePeersAddressWithAnIdOfThePair() {
        EndpointCore<Conn> server = core(5);
        server.startAccepting(new Admission(8, 8, 8), RESET_RATE, EndpointCoreTest::answer);
        ByteBuf syn = syn(100, 1, 0);
        assertEquals(Outcome.ACCEPT, server.handle(syn, CLIENT, 0));
        Conn conn = new Conn(CLIENT, UtpConnection.accept(UtpConfig.defaults(), syn, 7, 0));
        server.accepted(conn);
        assertEquals(Outcome.ROUTE, server.handle(syn, CLIENT, 1), "a retransmitted SYN goes to its connection");
        assertSame(conn, server.target());
        syn.release();
        ByteBuf reset = header(PacketType.RESET, 100, 1, 1);
        assertEquals(Outcome.DROP, server.handle(reset, address("192.0.2.8", 6881), 2), "the same ids from another address");
        assertEquals(Outcome.ROUTE, server.handle(reset, CLIENT, 2), "the peer's own RESET");
        assertSame(conn, server.target());
        reset.release();
        ByteBuf far = header(PacketType.RESET, 100 + 7, 1, 1);
        assertEquals(Outcome.DROP, server.handle(far, CLIENT, 3), "an id outside the pair");
        far.release();
        releaseAll(server);
    }

    @Test
    void aListenerThatStoppedAcceptingAnswersSynsWithAReset() {
        Admission admission = new Admission(8, 8, 8);
        EndpointCore<Conn> server = core(6);
        server.startAccepting(admission, RESET_RATE, EndpointCoreTest::answer);
        server.stopAccepting();
        ByteBuf syn = syn(5, 1, 0);
        assertEquals(Outcome.RESPOND, server.handle(syn, CLIENT, 0));
        server.takeResponse().release();
        syn.release();
        assertEquals(0, admission.halfOpen());
    }

    @Test
    void theConnectionLimitRefusesWithAResetAndAWithdrawnAdmissionFreesItsPlace() {
        Admission admission = new Admission(8, 1, 2);
        EndpointCore<Conn> server = core(7);
        server.startAccepting(admission, RESET_RATE, EndpointCoreTest::answer);
        ByteBuf syn = syn(5, 1, 0);
        assertEquals(Outcome.ACCEPT, server.handle(syn, CLIENT, 0));
        assertThrows(IllegalStateException.class, () -> server.handle(syn, CLIENT, 0), "an ACCEPT must be settled first");
        server.withdraw();
        assertEquals(0, admission.halfOpen());
        assertThrows(IllegalStateException.class, server::withdraw);
        assertEquals(Outcome.ACCEPT, server.handle(syn, CLIENT, 0));
        Conn conn = new Conn(CLIENT, UtpConnection.accept(UtpConfig.defaults(), syn, 7, 0));
        server.accepted(conn);
        server.promoted(conn);
        assertEquals(1, admission.established());
        ByteBuf another = syn(900, 1, 0);
        assertEquals(Outcome.RESPOND, server.handle(another, address("192.0.2.9", 1), 0), "one connection at most");
        server.takeResponse().release();
        assertEquals(1, admission.refused());
        another.release();
        syn.release();
        assertTrue(server.forget(conn));
        assertEquals(0, admission.established());
        conn.utp().abort(0);
        conn.utp().releaseUncollected();
    }

    @Test
    void connectionKeysAreHashedWithTheEndpointsSecretSalt() throws UnknownHostException {
        // Keys that all land in one bucket of a table hashing (address, port, id) the way a record does:
        // 31 * (address + port) + id stays the same when the port grows by one and the id drops by 31.
        InetAddress a = InetAddress.getByName("10.1.2.3");
        Set<Integer> recordStyle = new HashSet<>();
        Set<Integer> salted = new HashSet<>();
        long salt = new SplittableRandom(11).nextLong();
        int keys = 2000;
        for (int k = 0; k < keys; k++) {
            InetSocketAddress remote = new InetSocketAddress(a, 10_000 + k);
            int id = 65_000 - 31 * k;
            recordStyle.add(31 * remote.hashCode() + id);
            salted.add(ConnectionTable.saltedHash(remote, id, salt));
        }
        assertEquals(1, recordStyle.size(), "the crafted keys collide without a salt");
        assertTrue(salted.size() > keys - 10, "with the salt they spread: " + salted.size() + " distinct hashes of " + keys);
        InetSocketAddress one = new InetSocketAddress(a, 6881);
        assertNotEquals(ConnectionTable.saltedHash(one, 1, 1L), ConnectionTable.saltedHash(one, 1, 2L),
                "another endpoint's salt hashes the same key elsewhere");
    }

    // ------------------------------------------------------------------ the test's driver

    private java.util.function.Consumer<ByteBuf> clientSink;
    private Runnable onPromoted;

    /**
     * What a driver does with a datagram: routes it, accepts it, or sends the RESET; returns the packets
     * the server sent in answer. Packets to {@link #CLIENT} go to {@link #clientSink}, the rest to {@code others}.
     */
    private long serve(EndpointCore<Conn> server, ByteBuf datagram, InetSocketAddress from, long now,
                       java.util.function.Consumer<ByteBuf> others) {
        Conn conn;
        switch (server.handle(datagram, from, now)) {
            case ROUTE -> {
                conn = server.target();
                conn.utp().onPacket(datagram, server.parsed(), now); // as a driver does: the routing parse serves the connection
            }
            case ACCEPT -> {
                EndpointCore.Handshake h = server.handshake();
                if (h.revived()) {
                    conn = new Conn(from, UtpConnection.revive(UtpConfig.defaults(), h.syn(), h.seqNr(), now));
                    server.accepted(conn);
                    conn.utp().onPacket(datagram, null, now);
                } else {
                    conn = new Conn(from, UtpConnection.accept(UtpConfig.defaults(), datagram, 7, now));
                    server.accepted(conn);
                }
            }
            case RESPOND -> {
                send(server.takeResponse(), from, others);
                return 1;
            }
            default -> {
                return 0;
            }
        }
        if (server.isHalfOpen(conn) && conn.utp().isPeerConfirmed()) {
            server.promoted(conn);
            if (onPromoted != null && from.equals(CLIENT)) {
                onPromoted.run();
            }
        }
        long n = 0;
        for (ByteBuf p; (p = conn.utp().pollTransmit()) != null; n++) {
            send(p, from, others);
        }
        for (ByteBuf d; (d = conn.utp().pollData()) != null; ) {
            conn.utp().consumed(d.readableBytes(), now);
            d.release();
        }
        conn.utp().pollEvents();
        return n;
    }

    private void send(ByteBuf packet, InetSocketAddress to, java.util.function.Consumer<ByteBuf> others) {
        if (to.equals(CLIENT) && clientSink != null) {
            clientSink.accept(packet);
        } else if (others != null) {
            others.accept(packet);
        } else {
            packet.release();
        }
    }

    private static void releaseAll(EndpointCore<Conn> server) {
        for (Conn c : server.forgetAll()) {
            c.utp().abort(0);
            c.utp().releaseUncollected();
        }
    }

    /** A real initiator: its SYN, its retransmissions on its timer, and a little data once connected. */
    private static final class Client {
        private final EventQueue events;
        private final java.util.function.Consumer<ByteBuf> toServer;
        private UtpConnection utp;
        private boolean connected;
        private long armedFor = Long.MAX_VALUE;

        Client(EventQueue events, java.util.function.Consumer<ByteBuf> toServer) {
            this.events = events;
            this.toServer = toServer;
        }

        void start() {
            utp = UtpConnection.connect(UtpConfig.defaults(), 100, 1, events.now());
            ByteBuf data = Unpooled.wrappedBuffer(new byte[1024]);
            utp.write(data);
            data.release();
            utp.flush(events.now());
            afterCall();
        }

        void receive(ByteBuf packet) {
            if (utp != null) {
                utp.onPacket(packet, null, events.now());
            }
            packet.release();
            afterCall();
        }

        private void afterCall() {
            for (ByteBuf p; (p = utp.pollTransmit()) != null; ) {
                toServer.accept(p);
            }
            if ((utp.pollEvents() & UtpConnection.CONNECTED) != 0) {
                connected = true;
            }
            for (ByteBuf d; (d = utp.pollData()) != null; ) {
                d.release();
            }
            long deadline = utp.nextDeadlineNanos();
            if (deadline != Long.MAX_VALUE && deadline != armedFor) {
                armedFor = deadline;
                events.schedule(deadline, () -> {
                    if (armedFor == deadline && !utp.isTerminated()) {
                        armedFor = Long.MAX_VALUE;
                        utp.onTimer(events.now());
                        afterCall();
                    }
                });
            }
        }

        void release() {
            utp.abort(events.now());
            utp.releaseUncollected();
        }
    }

    // ------------------------------------------------------------------ packets

    private static ByteBuf syn(int connectionId, int seqNr, long now) {
        ByteBuf b = Unpooled.buffer(UtpWire.HEADER_SIZE);
        PacketWriter.writeHeader(b, PacketType.SYN, UtpWire.EXTENSION_NONE, connectionId, UtpWire.micros32(now), 0,
                1 << 20, seqNr, 0);
        return b;
    }

    private static ByteBuf synFrom(int i) {
        return syn(1000 + i, 1, 0);
    }

    private static ByteBuf header(PacketType type, int connectionId, int seqNr, int ackNr) {
        ByteBuf b = Unpooled.buffer(UtpWire.HEADER_SIZE);
        PacketWriter.writeHeader(b, type, UtpWire.EXTENSION_NONE, connectionId, 0, 0, 1 << 20, seqNr, ackNr);
        return b;
    }

    private static InetSocketAddress address(String host, int port) {
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
