package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.sim.LinkParams;
import io.ferry.transport.ledbat.sim.SimPair;
import io.ferry.transport.ledbat.sim.TrackingAllocator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The send and receive buffers grow as a flow needs them (see {@link UtpConfig}), in virtual time on a
 * long fat path: 200 Mbit/s, 150 ms round trip, a buffer of one bandwidth-delay product.
 */
class BufferAutoTuningTest {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    private static final long RATE = 25_000_000L;
    private static final long ONE_WAY = 75 * MS;
    private static final int MIB = 1024 * 1024;

    private record Run(double linkUse, long receiveLimit, long sendLimit, long maxUnconsumed, long timeouts, long lost) {
    }

    private static Run transfer(UtpConfig.Builder builder, long readRate) {
        TrackingAllocator alloc = new TrackingAllocator();
        UtpConfig config = builder.allocator(alloc).build();
        SimPair p = new SimPair(5, LinkParams.delay(ONE_WAY).withBottleneck(RATE, RATE * 2 * ONE_WAY / SECOND),
                LinkParams.delay(ONE_WAY), config, config);
        try {
            p.server.readSlowly(readRate);
            p.client.sendAll(new byte[400 * MIB], false);
            p.connect();
            p.events.runFor(8 * SECOND);
            long before = p.server.receivedBytes();
            p.events.runFor(4 * SECOND);
            double use = (p.server.receivedBytes() - before) / (RATE * 4.0);
            return new Run(use, p.server.connection().streams().receiveBufferLimit(), p.client.connection().streams().sendBufferLimit(),
                    p.server.maxUnconsumed(), p.client.connection().stats().timeouts(), p.client.connection().stats().packetsLost());
        } finally {
            p.client.abort();
            p.events.runUntil(() -> false, Long.MAX_VALUE);
            assertEquals(0, alloc.unreleased());
        }
    }

    @Test
    void onALongFatPathTheDefaultBuffersGrowUntilTheLinkIsFull() {
        Run grown = transfer(UtpConfig.builder(), 0);
        Run fixed = transfer(UtpConfig.builder().sendBufferSize(4 * MIB).receiveBufferSize(4 * MIB), 0);
        System.out.printf("200 Mbit/s, 150 ms: defaults %.3f of the link (receive buffer %d, send buffer %d, %d lost, %d timeouts); "
                + "fixed 4 MiB %.3f%n", grown.linkUse(), grown.receiveLimit(), grown.sendLimit(), grown.lost(), grown.timeouts(), fixed.linkUse());
        assertTrue(grown.linkUse() > 0.9, "link use with buffers that grow: " + grown.linkUse());
        assertTrue(grown.receiveLimit() > 4 * MIB && grown.receiveLimit() <= UtpConfig.DEFAULT_BUFFER_MAX, "receive buffer " + grown.receiveLimit());
        assertTrue(grown.sendLimit() > 4 * MIB && grown.sendLimit() <= UtpConfig.DEFAULT_BUFFER_MAX, "send buffer " + grown.sendLimit());
        assertEquals(4 * MIB, fixed.receiveLimit(), "a receive buffer whose size was set stays that size");
        assertEquals(4 * MIB, fixed.sendLimit(), "a send buffer whose size was set stays that size");
        assertTrue(fixed.linkUse() < grown.linkUse() - 0.1, "fixed 4 MiB: " + fixed.linkUse());
    }

    @Test
    void aReaderThatFallsBehindDoesNotMakeTheReceiveBufferGrow() {
        Run slow = transfer(UtpConfig.builder(), 2_000_000);
        System.out.printf("reader at 2 MB/s: receive buffer %d, most unread %d%n", slow.receiveLimit(), slow.maxUnconsumed());
        assertEquals(4 * MIB, slow.receiveLimit());
        assertTrue(slow.maxUnconsumed() <= 4 * MIB, "held unread: " + slow.maxUnconsumed());
    }

    @Test
    void aMaximumLetsAnExplicitSizeGrowAndBoundsIt() {
        Run bounded = transfer(UtpConfig.builder().receiveBufferSize(MIB).receiveBufferMax(6 * MIB), 0);
        assertTrue(bounded.receiveLimit() > MIB && bounded.receiveLimit() <= 6 * MIB, "receive buffer " + bounded.receiveLimit());
    }
}
