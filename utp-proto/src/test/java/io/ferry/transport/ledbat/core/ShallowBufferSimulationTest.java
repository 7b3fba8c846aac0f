package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.cc.LedbatPlusPlus;
import io.ferry.transport.ledbat.sim.LinkParams;
import io.ferry.transport.ledbat.sim.RenoFlow;
import io.ferry.transport.ledbat.sim.SimPair;
import io.ferry.transport.ledbat.sim.TrackingAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The default controller behind a LAN switch's buffer, too shallow for any queue to show (1 Gbit/s, 0.2 ms
 * RTT, 0.3 ms of buffer), in virtual time: every loss there read as random, so the scavenger kept 92 % of
 * the link beside a Reno flow and lost over a third of its packets, alone or not, until the loss probe's
 * test decrease (cc.LossProbe) told the buffer overflowing from a lossy link.
 */
class ShallowBufferSimulationTest {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    private static final long RATE = 125_000_000;
    private static final long ONE_WAY = MS / 10;
    private static final long QUEUE = RATE * 3 / 10_000;

    private final TrackingAllocator alloc = new TrackingAllocator();
    private SimPair pair;
    private RenoFlow reno;

    @AfterEach
    void releaseEverything() {
        if (reno != null) {
            reno.stop();
        }
        if (pair != null) {
            pair.abortAndDrain();
        }
        assertEquals(0, alloc.unreleased());
    }

    private SimPair lan() {
        UtpConfig config = UtpConfig.builder().allocator(alloc).build();
        return new SimPair(7, LinkParams.delay(ONE_WAY).withBottleneck(RATE, QUEUE), LinkParams.delay(ONE_WAY), config, config);
    }

    @Test
    void besideRenoTheDefaultLeavesItMostOfTheLinkAndStopsLosingAThirdOfItsPackets() {
        pair = lan();
        byte[] data = new byte[64 * 1024 * 1024];
        pair.client.sendAll(data, false);
        pair.connect();
        reno = new RenoFlow(pair.events, pair.clientToServer, ONE_WAY);
        reno.start();
        pair.events.runFor(SECOND);
        long utpBefore = pair.server.receivedBytes();
        long renoBefore = reno.deliveredBytes();
        for (int tick = 0; tick < 500; tick++) {
            pair.events.runFor(10 * MS);
            if (pair.client.sentBytes() == data.length) {
                pair.client.sendAll(data, false);
            }
        }
        double utp = pair.server.receivedBytes() - utpBefore;
        double tcp = reno.deliveredBytes() - renoBefore;
        ConnectionStats stats = pair.client.connection().stats();
        double lost = stats.packetsLost() / (double) stats.packetsSent();
        // before the probe: share 0.92
        assertTrue(utp / (utp + tcp) < 0.4, "the scavenger's share beside Reno: " + utp / (utp + tcp));
        assertTrue((utp + tcp) / 5.0 > 0.9 * RATE, "the link stays full: " + (utp + tcp) / 5.0 / RATE);
        assertTrue(lost < 0.05, "lost " + stats.packetsLost() + " of " + stats.packetsSent());
        assertTrue(((LedbatPlusPlus) pair.client.connection().congestionControl()).probedOverflows() > 0);
    }

    @Test
    void aloneTheDefaultStillFillsTheLinkWithoutRetransmittingAThirdOfIt() {
        pair = lan();
        byte[] data = TransferSupport.randomBytes(pair.random, 100 * 1024 * 1024);
        pair.client.sendAll(data, true);
        long start = pair.events.now();
        pair.connect();
        assertTrue(pair.run(() -> pair.server.receivedBytes() == data.length, 10 * SECOND), "the transfer completes");
        double seconds = (pair.events.now() - start) / 1e9;
        ConnectionStats stats = pair.client.connection().stats();
        // before the probe: 37,934 of 113,921 packets lost
        assertTrue(data.length / seconds > 0.85 * RATE, "link use " + data.length / seconds / RATE);
        assertTrue(stats.packetsLost() < 0.02 * stats.packetsSent(), "lost " + stats.packetsLost() + " of " + stats.packetsSent());
    }
}
