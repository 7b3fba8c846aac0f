package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.sim.SimPair;
import io.ferry.transport.ledbat.sim.SimPeer;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Shared steps of the simulated transfer tests. */
final class TransferSupport {
    private TransferSupport() {
    }

    static byte[] randomBytes(Random random, int length) {
        byte[] data = new byte[length];
        random.nextBytes(data);
        return data;
    }

    /** Asserts that {@code receiver} got exactly {@code data} (by length and SHA-256). */
    static void assertDelivered(byte[] data, SimPeer receiver, String context) {
        assertEquals(data.length, receiver.receivedBytes(), context + ": byte count");
        assertArrayEquals(SimPeer.sha256(data), receiver.receivedDigest(), context + ": SHA-256 of the content");
    }

    /** Asserts that a failed transfer failed with a clear {@link UtpException}, not silently. */
    static void assertFailedCleanly(SimPeer peer, String context) {
        assertTrue(peer.isClosed(), context + ": " + peer + " neither finished nor closed");
        assertTrue(peer.closeCause() instanceof UtpException,
                context + ": " + peer + " closed without a UtpException: " + peer.closeCause());
    }

    static String describe(long seed, SimPair pair) {
        return "seed " + seed + " client=" + state(pair.client) + " server=" + state(pair.server);
    }

    private static String state(SimPeer p) {
        UtpConnection c = p.connection();
        if (c == null) {
            return "(none)";
        }
        return c.state() + Arrays.toString(new long[]{p.receivedBytes(), p.sentBytes(), c.stats().retransmissions(),
                c.stats().timeouts(), c.pathStats().cwndBytes(), c.pathStats().bytesInFlight(), c.pathStats().peerWindowBytes()})
                + (p.closeCause() != null ? " cause=" + p.closeCause().getMessage() : "");
    }
}
