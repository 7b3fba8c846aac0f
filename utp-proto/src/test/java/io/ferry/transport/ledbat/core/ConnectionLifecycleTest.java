package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.sim.EventQueue;
import io.ferry.transport.ledbat.sim.Link;
import io.ferry.transport.ledbat.sim.LinkParams;
import io.ferry.transport.ledbat.sim.SimPair;
import io.ferry.transport.ledbat.sim.SimPeer;
import io.ferry.transport.ledbat.sim.TrackingAllocator;
import io.ferry.transport.ledbat.wire.PacketReader;
import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.PacketValidity;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The connection life cycle end to end over simulated links: handshake, half-close, close, failures. */
class ConnectionLifecycleTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long MS = 1_000_000L;

    private final TrackingAllocator alloc = new TrackingAllocator();
    private SimPair pair;

    private UtpConfig.Builder config() {
        return UtpConfig.builder().allocator(alloc);
    }

    @AfterEach
    void everyBufferIsReleased() {
        if (pair != null) {
            pair.abortAndDrain();
        }
        assertEquals(0, alloc.unreleased(), "buffers not released");
    }

    private SimPair pair(LinkParams link, UtpConfig config) {
        pair = new SimPair(42, link, config);
        return pair;
    }

    private static UtpException.Reason reason(SimPeer peer) {
        assertInstanceOf(UtpException.class, peer.closeCause(), peer + " cause");
        return ((UtpException) peer.closeCause()).reason();
    }

    @Test
    void handshakeAssignsConnectionIdsAsBep29Describes() {
        SimPair p = pair(LinkParams.delay(20 * MS), config().build()).connect();
        p.run(() -> p.client.isConnected() && p.server.isConnected(), 5 * SECOND);
        UtpConnection c = p.client.connection();
        UtpConnection s = p.server.connection();
        assertTrue(c.ids().initiator());
        assertFalse(s.ids().initiator());
        assertEquals(UtpWire.seqAdd(c.ids().recvId(), 1), c.ids().sendId());
        assertEquals(c.ids().recvId(), s.ids().sendId());
        assertEquals(c.ids().sendId(), s.ids().recvId());
        assertEquals(ConnectionState.CONNECTED, c.state());
        assertTrue(c.pathStats().smoothedRttNanos() > 0, "the handshake gives a first RTT sample");
    }

    @Test
    void bothDirectionsTransferAndBothSidesCloseGracefully() {
        SimPair p = pair(LinkParams.delay(30 * MS), config().build());
        byte[] up = TransferSupport.randomBytes(p.random, 300_000);
        byte[] down = TransferSupport.randomBytes(p.random, 200_000);
        p.client.sendAll(up, true);
        p.server.sendAll(down, true);
        p.client.closeWhenDone();
        p.server.closeWhenDone();
        p.connect();
        assertTrue(p.run(() -> p.client.isClosed() && p.server.isClosed(), 60 * SECOND));
        assertNull(p.client.closeCause());
        assertNull(p.server.closeCause());
        TransferSupport.assertDelivered(up, p.server, "up");
        TransferSupport.assertDelivered(down, p.client, "down");
        assertTrue(p.run(() -> p.client.connection().isTerminated() && p.server.connection().isTerminated(),
                10 * 60 * SECOND), "lingering ends");
        assertEquals(Long.MAX_VALUE, p.client.connection().nextDeadlineNanos());
    }

    @Test
    void clientHalfCloseLeavesServerToClientDirectionOpen() {
        SimPair p = pair(LinkParams.delay(25 * MS).withLoss(0.05), config().build());
        byte[] up = TransferSupport.randomBytes(p.random, 50_000);
        byte[] down = TransferSupport.randomBytes(p.random, 400_000);
        p.client.sendAll(up, true);
        p.connect();
        assertTrue(p.run(p.server::isEndOfStream, 60 * SECOND));
        assertTrue(p.client.connection().streams().isOutputShutdown());
        assertFalse(p.client.connection().streams().isInputShutdown());
        assertFalse(p.server.isClosed());
        p.server.sendAll(down, true);
        assertTrue(p.run(p.client::isEndOfStream, 120 * SECOND));
        TransferSupport.assertDelivered(up, p.server, "before the half-close");
        TransferSupport.assertDelivered(down, p.client, "after the half-close");
        assertTrue(p.run(() -> p.client.isClosed() && p.server.isClosed(), 60 * SECOND),
                "both FINs acknowledged closes both sides");
        assertNull(p.client.closeCause());
        assertNull(p.server.closeCause());
    }

    @Test
    void serverHalfCloseLeavesClientToServerDirectionOpen() {
        SimPair p = pair(LinkParams.delay(25 * MS).withLoss(0.05), config().build());
        byte[] down = TransferSupport.randomBytes(p.random, 10_000);
        byte[] up = TransferSupport.randomBytes(p.random, 500_000);
        p.server.sendAll(down, true);
        p.connect();
        assertTrue(p.run(p.client::isEndOfStream, 60 * SECOND));
        assertTrue(p.client.connection().streams().isInputShutdown());
        assertFalse(p.server.connection().streams().isInputShutdown());
        p.client.sendAll(up, true);
        assertTrue(p.run(() -> p.client.isClosed() && p.server.isClosed(), 120 * SECOND));
        TransferSupport.assertDelivered(down, p.client, "down");
        TransferSupport.assertDelivered(up, p.server, "up");
    }

    @Test
    void abortResetsThePeerWhichFailsWithResetByPeer() {
        SimPair p = pair(LinkParams.delay(10 * MS), config().build());
        p.client.sendAll(TransferSupport.randomBytes(p.random, 1_000_000), false);
        p.connect();
        p.run(() -> p.server.receivedBytes() > 100_000, 30 * SECOND);
        p.client.abort();
        assertTrue(p.client.isClosed());
        assertNull(p.client.closeCause(), "a local abort is not an error");
        assertTrue(p.client.connection().isTerminated());
        assertTrue(p.run(p.server::isClosed, 5 * SECOND));
        assertEquals(UtpException.Reason.RESET_BY_PEER, reason(p.server));
    }

    @Test
    void connectTimesOutWhenNobodyAnswers() {
        SimPair p = pair(LinkParams.delay(10 * MS).withLoss(1.0),
                config().connectTimeout(Duration.ofSeconds(5)).maxRetransmits(100).build()).connect();
        long start = p.events.now();
        assertTrue(p.run(p.client::isClosed, 60 * SECOND));
        assertEquals(UtpException.Reason.CONNECT_TIMEOUT, reason(p.client));
        assertEquals(5 * SECOND, p.client.closedAtNanos() - start, 10 * MS);
        assertTrue(p.client.connection().stats().retransmissions() >= 2, "the SYN was retransmitted");
    }

    @Test
    void synRetransmissionsAreBoundedByMaxRetransmits() {
        SimPair p = pair(LinkParams.delay(10 * MS).withLoss(1.0),
                config().maxRetransmits(2).connectTimeout(Duration.ofMinutes(5)).build()).connect();
        assertTrue(p.run(p.client::isClosed, 60 * SECOND));
        assertEquals(UtpException.Reason.RETRANSMIT_LIMIT, reason(p.client));
        assertTrue(p.client.closeCause().getMessage().contains("SYN"), p.client.closeCause().getMessage());
    }

    @Test
    void resetAnsweringTheSynReportsConnectionRefused() {
        EventQueue events = new EventQueue(SimPair.START_NANOS);
        SimPeer client = new SimPeer("client", events, 0);
        PacketReader reader = new PacketReader();
        Link back = new Link(events, new Random(1), LinkParams.delay(5 * MS), client::receive);
        Link out = new Link(events, new Random(2), LinkParams.delay(5 * MS), packet -> {
            assertEquals(PacketValidity.VALID, reader.wrap(packet));
            back.send(UtpDemux.resetReply(alloc, reader, events.now()));
        });
        client.attach(out::send);
        client.connect(config().build(), 1234, 1);
        events.runUntil(client::isClosed, events.now() + 10 * SECOND);
        assertEquals(UtpException.Reason.CONNECTION_REFUSED, reason(client));
        events.runUntil(() -> false, Long.MAX_VALUE);
    }

    @Test
    void lostHandshakeAnswerIsRepeatedForARetransmittedSyn() {
        SimPair p = pair(LinkParams.delay(20 * MS), config().build());
        p.serverToClient.setParams(LinkParams.delay(20 * MS).withLoss(1.0));
        p.connect();
        p.run(() -> false, 1500 * MS);
        assertFalse(p.client.isConnected());
        p.serverToClient.setParams(LinkParams.delay(20 * MS));
        assertTrue(p.run(p.client::isConnected, 10 * SECOND));
        byte[] down = TransferSupport.randomBytes(p.random, 20_000);
        p.server.sendAll(down, true);
        assertTrue(p.run(p.client::isEndOfStream, 10 * SECOND));
        TransferSupport.assertDelivered(down, p.client, "after a repeated handshake");
    }

    @Test
    void theSynCachesAnswerIsTheOneAnAcceptorSendsAndItsConfirmationMakesTheConnection() {
        UtpConfig config = config().build();
        UtpConnection client = UtpConnection.connect(config, 300, 1, 5 * MS);
        ByteBuf syn = client.pollTransmit();
        UtpConnection acceptor = UtpConnection.accept(config, syn, 4242, 25 * MS);
        ByteBuf answered = acceptor.pollTransmit();
        ByteBuf cached = SynAnswer.build(config, syn, 4242, 25 * MS);
        assertEquals(io.netty.buffer.ByteBufUtil.hexDump(answered), io.netty.buffer.ByteBufUtil.hexDump(cached),
                "the same bytes as a connection's answer");
        answered.release();
        acceptor.abort(25 * MS);
        acceptor.releaseUncollected();
        // the initiator confirms the cached answer; the connection made from it then carries data both ways
        client.onPacket(cached, null, 45 * MS);
        cached.release();
        assertEquals(ConnectionState.CONNECTED, client.state());
        ByteBuf confirmation = client.pollTransmit();
        UtpConnection revived = UtpConnection.revive(config, syn, 4242, 65 * MS);
        revived.onPacket(confirmation, null, 65 * MS);
        assertTrue(revived.isPeerConfirmed());
        confirmation.release();
        syn.release();
        for (UtpConnection c : new UtpConnection[]{client, revived}) {
            c.abort(70 * MS);
            c.releaseUncollected();
        }
    }

    @Test
    void acceptorWaitsForTheInitiatorBeforeSendingAndRepeatsItsAnswerIfTheConfirmationIsLost() {
        SimPair p = pair(LinkParams.delay(20 * MS), config().build());
        byte[] down = TransferSupport.randomBytes(p.random, 30_000);
        p.server.sendAll(down, true);
        AtomicInteger clientPackets = new AtomicInteger();
        // drop the client's confirmation (its first packet after the SYN)
        p.clientToServer.setObserver(packet -> clientPackets.incrementAndGet());
        p.connect();
        p.run(() -> clientPackets.get() >= 1, SECOND);
        p.clientToServer.setParams(LinkParams.delay(20 * MS).withLoss(1.0));
        p.run(() -> clientPackets.get() >= 2, SECOND);
        assertTrue(p.client.isConnected());
        assertEquals(0, p.client.receivedBytes(), "no data before the acceptor heard from the initiator");
        p.clientToServer.setParams(LinkParams.delay(20 * MS));
        assertTrue(p.run(p.client::isEndOfStream, 30 * SECOND));
        TransferSupport.assertDelivered(down, p.client, "server speaks first");
    }

    @Test
    void idleTimeoutFiresWhenThePeerVanishes() {
        SimPair p = pair(LinkParams.delay(10 * MS),
                config().idleTimeout(Duration.ofSeconds(10)).keepAliveInterval(Duration.ofSeconds(2)).build()).connect();
        p.run(() -> p.client.isConnected() && p.server.isConnected(), SECOND);
        p.run(() -> false, 30 * SECOND);
        assertFalse(p.client.isClosed(), "keep-alives keep an idle connection open");
        assertFalse(p.server.isClosed());
        long vanished = p.events.now();
        p.clientToServer.setParams(LinkParams.delay(10 * MS).withLoss(1.0));
        p.serverToClient.setParams(LinkParams.delay(10 * MS).withLoss(1.0));
        assertTrue(p.run(() -> p.client.isClosed() && p.server.isClosed(), 60 * SECOND));
        assertEquals(UtpException.Reason.IDLE_TIMEOUT, reason(p.client));
        assertEquals(UtpException.Reason.IDLE_TIMEOUT, reason(p.server));
        assertTrue(p.client.closedAtNanos() - vanished <= 10 * SECOND + 100 * MS);
    }

    @Test
    void unansweredRetransmissionsFailWithRetransmitLimit() {
        SimPair p = pair(LinkParams.delay(10 * MS),
                config().maxRetransmits(4).idleTimeout(Duration.ZERO).build());
        p.client.sendAll(TransferSupport.randomBytes(p.random, 2_000_000), true);
        p.connect();
        p.run(() -> p.server.receivedBytes() > 50_000, 30 * SECOND);
        p.clientToServer.setParams(LinkParams.delay(10 * MS).withLoss(1.0));
        assertTrue(p.run(p.client::isClosed, 10 * 60 * SECOND));
        assertEquals(UtpException.Reason.RETRANSMIT_LIMIT, reason(p.client));
        assertTrue(p.client.closeCause().getMessage().contains("4 retransmissions"), p.client.closeCause().getMessage());
        assertEquals(5, p.client.connection().stats().timeouts());
    }

    @Test
    void closeTimesOutWhenThePeerNeverSendsItsFin() {
        SimPair p = pair(LinkParams.delay(10 * MS), config().closeTimeout(Duration.ofSeconds(5)).build()).connect();
        p.run(() -> p.client.isConnected() && p.server.isConnected(), SECOND);
        p.client.close();
        assertFalse(p.client.isClosed());
        assertTrue(p.run(p.server::isEndOfStream, SECOND), "our FIN reaches the peer");
        assertTrue(p.run(p.client::isClosed, 30 * SECOND));
        assertEquals(UtpException.Reason.CLOSE_TIMEOUT, reason(p.client));
        assertTrue(p.run(p.server::isClosed, SECOND));
        assertEquals(UtpException.Reason.RESET_BY_PEER, reason(p.server));
    }

    @Test
    void sequenceNumbersWrapAroundDuringATransfer() {
        UtpConfig small = config().packetSize(UtpConfig.MIN_PACKET_SIZE).build();
        SimPair p = pair(LinkParams.delay(15 * MS).withLoss(0.03).withJitter(3 * MS), small);
        p.initialSeqs(65_530, 65_500);
        byte[] up = TransferSupport.randomBytes(p.random, 2_000_000);
        byte[] down = TransferSupport.randomBytes(p.random, 1_000_000);
        p.client.sendAll(up, true);
        p.server.sendAll(down, true);
        p.client.closeWhenDone();
        p.server.closeWhenDone();
        p.connect();
        assertTrue(p.run(() -> p.client.isClosed() && p.server.isClosed(), 30 * 60 * SECOND));
        assertTrue(p.client.connection().stats().packetsSent() > 65_536 / 4, "enough packets to wrap");
        assertTrue(2_000_000 / small.maxPayloadSize() > 65_536 - 65_530, "the sequence space wrapped");
        TransferSupport.assertDelivered(up, p.server, "up across the wrap");
        TransferSupport.assertDelivered(down, p.client, "down across the wrap");
    }

    @Test
    void slowReaderClosesTheWindowAndEverythingArrivesWithoutOverflowingTheBuffer() {
        int receiveBuffer = 16 * 1024;
        UtpConfig c = config().receiveBufferSize(receiveBuffer).build();
        SimPair p = pair(LinkParams.delay(20 * MS).withLoss(0.02), c);
        byte[] up = TransferSupport.randomBytes(p.random, 300_000);
        p.server.readSlowly(30_000);
        p.client.sendAll(up, true);
        p.connect();
        long start = p.events.now();
        assertTrue(p.run(p.server::isEndOfStream, 10 * 60 * SECOND));
        long elapsed = p.events.now() - start;
        TransferSupport.assertDelivered(up, p.server, "slow reader");
        assertTrue(elapsed >= 8 * SECOND, "the reader's pace (30 kB/s) bounds the transfer: " + elapsed / MS + " ms");
        assertTrue(p.server.maxUnconsumed() <= receiveBuffer + c.maxPayloadSize(),
                "receiver held " + p.server.maxUnconsumed() + " unconsumed bytes");
    }

    @Test
    void fiveHundredMillisecondRttWithQuarterLossStillDeliversIntact() {
        for (long seed = 1; seed <= 3; seed++) {
            TrackingAllocator a = new TrackingAllocator();
            SimPair p = new SimPair(seed, LinkParams.delay(250 * MS).withLoss(0.25),
                    UtpConfig.builder().allocator(a).build());
            byte[] up = TransferSupport.randomBytes(p.random, 100_000);
            p.client.sendAll(up, true);
            p.server.sendAll(new byte[0], true);
            p.client.closeWhenDone();
            p.server.closeWhenDone();
            p.connect();
            assertTrue(p.run(() -> p.client.isClosed() && p.server.isClosed(), 60 * 60 * SECOND), "seed " + seed);
            assertNull(p.client.closeCause(), "seed " + seed);
            TransferSupport.assertDelivered(up, p.server, "seed " + seed);
            p.events.runUntil(() -> false, Long.MAX_VALUE);
            assertEquals(0, a.unreleased());
        }
    }

    @Test
    void writesStopWhenTheSendBufferIsFullAndResumeWhenItDrains() {
        UtpConfig c = config().sendBufferSize(8 * 1024).build();
        SimPair p = pair(LinkParams.delay(20 * MS), c);
        byte[] up = TransferSupport.randomBytes(p.random, 200_000);
        p.client.sendAll(up, true);
        p.connect();
        assertTrue(p.run(p.server::isEndOfStream, 60 * SECOND));
        TransferSupport.assertDelivered(up, p.server, "through a small send buffer");
        assertTrue(p.client.unwritableEvents() > 5);
        assertEquals(p.client.unwritableEvents(), p.client.writableEvents());
    }

    @Test
    void noPacketEverExceedsTheConfiguredPacketSize() {
        UtpConfig c = config().packetSize(300).build();
        SimPair p = pair(LinkParams.delay(20 * MS).withLoss(0.1).withJitter(10 * MS), c);
        AtomicInteger largest = new AtomicInteger();
        p.clientToServer.setObserver(b -> largest.accumulateAndGet(b.readableBytes(), Math::max));
        p.serverToClient.setObserver(b -> largest.accumulateAndGet(b.readableBytes(), Math::max));
        byte[] up = TransferSupport.randomBytes(p.random, 200_000);
        p.client.sendAll(up, true);
        p.connect();
        assertTrue(p.run(p.server::isEndOfStream, 10 * 60 * SECOND));
        TransferSupport.assertDelivered(up, p.server, "small packets");
        assertEquals(300, largest.get());
        assertTrue(p.client.connection().stats().packetsLost() > 0, "loss was detected from SACKs");
        // 10 % of the acknowledgements are lost too, and 10 ms of jitter reorders packets: some of what
        // the client sent again had arrived, and the server counts it
        assertTrue(p.server.connection().stats().duplicatePacketsReceived() > 0,
                "duplicates counted: " + p.server.connection().stats().duplicatePacketsReceived());
    }

    @Test
    void malformedPacketsAreCountedAndDroppedWithoutHarm() {
        SimPair p = pair(LinkParams.delay(10 * MS), config().build()).connect();
        p.run(() -> p.client.isConnected() && p.server.isConnected(), SECOND);
        UtpConnection c = p.client.connection();
        ByteBuf runt = Unpooled.wrappedBuffer(new byte[]{0x21, 0, 0});
        ByteBuf badSack = Unpooled.buffer();
        io.ferry.transport.ledbat.wire.PacketWriter.writeHeader(badSack, PacketType.STATE,
                UtpWire.EXTENSION_SELECTIVE_ACK, c.ids().recvId(), 1, 1, 1000, 1, 1);
        badSack.writeByte(0).writeByte(3).writeBytes(new byte[3]);
        try {
            c.onPacket(runt, null, p.client.now());
            c.onPacket(badSack, null, p.client.now());
        } finally {
            runt.release();
            badSack.release();
        }
        assertEquals(2, c.stats().malformedPacketsDropped());
        assertEquals(ConnectionState.CONNECTED, c.state());
        byte[] up = TransferSupport.randomBytes(p.random, 10_000);
        p.client.sendAll(up, true);
        assertTrue(p.run(p.server::isEndOfStream, 10 * SECOND));
        TransferSupport.assertDelivered(up, p.server, "after malformed input");
    }

    @Test
    void blindResetsAndStatesWithNumbersFarFromThoseInPlayAreCountedAndIgnored() {
        SimPair p = pair(LinkParams.delay(10 * MS), config().build()).connect();
        AtomicInteger serverSeq = new AtomicInteger();
        AtomicInteger clientSeq = new AtomicInteger();
        p.serverToClient.setObserver(b -> serverSeq.set(b.getUnsignedShort(b.readerIndex() + 16)));
        p.clientToServer.setObserver(b -> clientSeq.set(b.getUnsignedShort(b.readerIndex() + 16)));
        p.run(() -> p.client.isConnected() && p.server.isConnected(), SECOND);
        byte[] first = TransferSupport.randomBytes(p.random, 20_000);
        p.server.sendAll(first, false);
        assertTrue(p.run(() -> p.client.receivedBytes() == first.length, 10 * SECOND));
        UtpConnection c = p.client.connection();
        int farSeq = UtpWire.seqAdd(serverSeq.get(), 20_000);
        int farAck = UtpWire.seqAdd(clientSeq.get(), 20_000);
        ByteBuf reset = Unpooled.buffer();
        ByteBuf state = Unpooled.buffer();
        // a RESET must acknowledge something the client sent; a STATE must carry a sequence number near the next expected
        io.ferry.transport.ledbat.wire.PacketWriter.writeHeader(reset, PacketType.RESET, UtpWire.EXTENSION_NONE,
                c.ids().recvId(), 1, 1, 0, farSeq, farAck);
        io.ferry.transport.ledbat.wire.PacketWriter.writeHeader(state, PacketType.STATE, UtpWire.EXTENSION_NONE,
                c.ids().recvId(), 1, 1, 0, farSeq, farAck);
        try {
            c.onPacket(reset, null, p.client.now());
            c.onPacket(state, null, p.client.now());
        } finally {
            reset.release();
            state.release();
        }
        assertEquals(2, c.stats().implausiblePacketsDropped());
        assertEquals(ConnectionState.CONNECTED, c.state(), "the RESET did not end the connection");
        byte[] up = TransferSupport.randomBytes(p.random, 10_000);
        p.client.sendAll(up, true);
        assertTrue(p.run(p.server::isEndOfStream, 10 * SECOND), "the STATE's zero window did not stall the stream");
        TransferSupport.assertDelivered(up, p.server, "after forged packets");
    }

    @Test
    void statisticsReflectTheTransfer() {
        SimPair p = pair(LinkParams.delay(20 * MS).withLoss(0.05), config().build());
        byte[] up = TransferSupport.randomBytes(p.random, 500_000);
        p.client.sendAll(up, true);
        p.connect();
        assertTrue(p.run(p.server::isEndOfStream, 60 * SECOND));
        ConnectionStats cs = p.client.connection().stats();
        ConnectionStats ss = p.server.connection().stats();
        assertTrue(cs.payloadBytesSent() > up.length, "5 % loss: retransmitted payload counts on the wire");
        assertEquals(up.length, cs.distinctPayloadBytesSent(), "each application byte once (TransportStatistics.bytesSent)");
        assertEquals(up.length, ss.payloadBytesReceived());
        assertTrue(cs.retransmissions() > 0 && cs.packetsLost() > 0);
        assertTrue(cs.packetsSent() > up.length / 1380);
        assertTrue(ss.packetsReceived() > 0);
        UtpConnection c = p.client.connection();
        PathStats path = c.pathStats();
        assertTrue(path.smoothedRttNanos() >= 40 * MS, "srtt " + path.smoothedRttNanos());
        assertTrue(path.rttVarianceNanos() >= 0, "an RTT variation was measured (-1 before any sample)");
        assertTrue(path.rtoNanos() >= 500 * MS);
        assertTrue(path.cwndBytes() >= 2 * 1380);
        assertTrue(path.queuingDelayMicros() >= 0, "the controller estimated the queuing delay (-1 while unknown)");
        assertTrue(path.baseDelayMicros() >= 0, "the controller estimated the base delay (-1 while unknown)");
        // everything was consumed: the whole 4 MiB buffer, in the payload bytes it holds (each kept
        // payload is charged its buffer and overhead too, so fewer than 4 MiB of them, but more than half)
        assertTrue(path.peerWindowBytes() <= 4 * 1024 * 1024 && path.peerWindowBytes() > 2 * 1024 * 1024, "peer window " + path.peerWindowBytes());
        assertEquals("ledbat", path.congestionControl());
    }
}
