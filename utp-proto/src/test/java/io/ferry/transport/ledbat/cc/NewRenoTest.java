package io.ferry.transport.ledbat.cc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NewRenoTest {
    private static final int MSS = 1000;
    private static final long RTT = 100_000_000L;

    @Test
    void startsWithRfc5681sInitialWindowAndDoublesPerRoundTripInSlowStart() {
        NewReno cc = new NewReno(new CongestionParameters(MSS, 100_000));
        assertEquals(4000, cc.cwndBytes(), "min(4 * 1000, max(2 * 1000, 4380))");
        AckClock path = new AckClock(cc, MSS, RTT);
        path.runFor(RTT);
        assertEquals(8000, cc.cwndBytes(), "one packet per acknowledged packet");
        path.runFor(RTT);
        assertEquals(16000, cc.cwndBytes());
        assertTrue(cc.inSlowStart());
    }

    @Test
    void halvesOnLossOncePerWindowAndThenGrowsOnePacketPerRoundTrip() {
        NewReno cc = new NewReno(new CongestionParameters(MSS, 100_000));
        AckClock path = new AckClock(cc, MSS, RTT);
        path.runUntilWindow(100 * MSS);
        path.runFor(RTT / 2);
        long before = cc.cwndBytes();
        long flight = path.flight();
        assertTrue(path.loss());
        assertEquals(flight / 2, cc.cwndBytes(), "ssthresh = FlightSize / 2, cwnd = ssthresh");
        assertEquals(flight / 2, cc.ssthreshBytes());
        assertTrue(before > cc.cwndBytes());

        long halved = cc.cwndBytes();
        path.runFor(RTT / 2);
        assertFalse(path.loss(), "a second loss in the same window is the same episode");
        assertEquals(halved, cc.cwndBytes(), "and the window does not grow during recovery");

        path.runFor(RTT / 2 + 1);
        long start = cc.cwndBytes();
        for (int round = 1; round <= 20; round++) {
            path.runFor(RTT);
            assertEquals(start + (long) round * MSS, cc.cwndBytes(), 1.0 * MSS, "round " + round);
        }
        assertFalse(cc.inSlowStart());

        path.runFor(RTT);
        long grown = cc.cwndBytes();
        long flightNow = path.flight();
        assertTrue(path.loss(), "a loss a round trip later is a new episode");
        assertEquals(flightNow / 2, cc.cwndBytes());
        assertTrue(cc.cwndBytes() < grown);
    }

    @Test
    void aTimeoutCollapsesTheWindowToOnePacketAndHalvesSsthresh() {
        NewReno cc = new NewReno(new CongestionParameters(MSS, 100_000));
        AckClock path = new AckClock(cc, MSS, RTT);
        path.runUntilWindow(40 * MSS);
        path.runFor(RTT / 2);
        long flight = path.flight();
        cc.onTimeout(path.now());
        assertEquals(MSS, cc.cwndBytes());
        assertEquals(flight / 2, cc.ssthreshBytes());
        assertTrue(cc.inSlowStart());
    }

    @Test
    void aTimeoutWithinARecoveryOrRepeatedKeepsTheSsthreshItFound() {
        NewReno cc = new NewReno(new CongestionParameters(MSS, 100_000));
        AckClock path = new AckClock(cc, MSS, RTT);
        path.runUntilWindow(80 * MSS);
        path.runFor(RTT / 2);
        assertTrue(path.loss());
        long recovery = cc.ssthreshBytes();
        // the retransmission itself is lost: a timeout while the flight is what the loss left
        cc.onTimeout(path.now() + RTT / 4);
        assertEquals(MSS, cc.cwndBytes());
        assertEquals(recovery, cc.ssthreshBytes(), "not halved a second time");
        // and again, before anything new was acknowledged
        cc.onTimeout(path.now() + RTT);
        assertEquals(recovery, cc.ssthreshBytes(), "held on a repeated timeout (RFC 5681 section 3.1)");
    }

    @Test
    void anUnusedWindowDoesNotGrow() {
        NewReno cc = new NewReno(new CongestionParameters(MSS, 100_000));
        long before = cc.cwndBytes();
        for (int i = 0; i < 100; i++) {
            cc.onAck(MSS, MSS, RTT, i * RTT);
        }
        assertEquals(before, cc.cwndBytes(), "one packet in flight of a four-packet window is application-limited");
    }
}
