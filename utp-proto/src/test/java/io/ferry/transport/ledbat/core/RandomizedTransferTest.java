package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.cc.CongestionControls;
import io.ferry.transport.ledbat.sim.LinkParams;
import io.ferry.transport.ledbat.sim.SimPair;
import io.ferry.transport.ledbat.sim.TrackingAllocator;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Hundreds of seeded transfers over hostile simulated links. Each one must end, within bounded
 * virtual time, either with every byte delivered intact in both directions and both sides closed
 * gracefully, or with a clear {@link UtpException} - never a hang, never corruption, never a leak.
 */
class RandomizedTransferTest {
    private static final int SEEDS = 1000;
    private static final long MAX_VIRTUAL_NANOS = Duration.ofHours(6).toNanos();

    private static final String[] CONTROLLERS = {
            CongestionControls.LEDBAT, CongestionControls.LEDBAT, CongestionControls.LEDBAT_STRICT,
            CongestionControls.FIXED_WINDOW};

    @Test
    void everyTransferIsByteExactOrFailsWithAClearErrorAcrossHundredsOfSeeds() {
        List<String> failures = new ArrayList<>();
        int lossyFailures = 0;
        for (long seed = 0; seed < SEEDS; seed++) {
            Outcome outcome = runSeed(seed);
            if (outcome.failure != null) {
                failures.add(outcome.failure);
                if (outcome.lossRate <= 0.10) {
                    fail("a link with at most 10% loss must not fail: " + outcome.failure);
                }
                lossyFailures++;
            }
        }
        System.out.println(SEEDS + " seeds, " + totalBytes + " bytes delivered, " + failures.size() + " clean failures: "
                + failures);
        assertTrue(lossyFailures <= SEEDS / 50, "too many transfers gave up on lossy links: " + failures);
    }

    private static long totalBytes;

    private record Outcome(String failure, double lossRate) {
    }

    private static Outcome runSeed(long seed) {
        Random r = new Random(seed * 0x9E3779B97F4A7C15L);
        TrackingAllocator alloc = new TrackingAllocator();
        long delay = Duration.ofMillis(1 + r.nextInt(250)).toNanos();
        double loss = pick(r, 0, 0.01, 0.05, 0.10, 0.25);
        LinkParams link = LinkParams.delay(delay)
                .withLoss(loss)
                .withJitter(r.nextBoolean() ? Duration.ofMillis(r.nextInt(20)).toNanos() : 0)
                .withDuplicates(r.nextInt(4) == 0 ? 0.03 : 0);
        if (r.nextInt(3) == 0) {
            link = link.withBottleneck(125_000L * (1 + r.nextInt(100)), 16_384 + r.nextInt(256 * 1024));
        }
        UtpConfig config = UtpConfig.builder()
                .allocator(alloc)
                .packetSize(UtpConfig.MIN_PACKET_SIZE + r.nextInt(1400 - UtpConfig.MIN_PACKET_SIZE + 1))
                .sendBufferSize(16 * 1024 + r.nextInt(1024 * 1024))
                .receiveBufferSize(16 * 1024 + r.nextInt(1024 * 1024))
                .delayedAckTimeout(Duration.ofMillis(r.nextInt(50)))
                .congestionControl(CONTROLLERS[r.nextInt(CONTROLLERS.length)])
                .idleTimeout(Duration.ofMinutes(5))
                .closeTimeout(Duration.ofMinutes(10))
                .build();
        SimPair pair = new SimPair(seed, link, config);
        int clientSeq = r.nextBoolean() ? 65_535 - r.nextInt(40) : r.nextInt(65_536);
        pair.initialSeqs(clientSeq, r.nextBoolean() ? 65_535 - r.nextInt(40) : r.nextInt(65_536));
        int direction = r.nextInt(3);
        // at 25% loss a window stays at about two packets, so keep those transfers moderate
        int cap = loss >= 0.25 ? 512 * 1024 : Integer.MAX_VALUE;
        byte[] up = direction != 1 ? TransferSupport.randomBytes(r, Math.min(cap, size(r))) : new byte[0];
        byte[] down = direction != 0 ? TransferSupport.randomBytes(r, Math.min(cap, size(r))) : new byte[0];
        pair.client.sendAll(up, true);
        pair.server.sendAll(down, true);
        pair.client.closeWhenDone();
        pair.server.closeWhenDone();
        pair.connect();
        pair.run(() -> pair.client.isClosed() && pair.server.isClosed(), MAX_VIRTUAL_NANOS);
        String context = TransferSupport.describe(seed, pair) + " loss=" + loss + " delay=" + delay / 1_000_000
                + "ms up=" + up.length + " down=" + down.length;
        assertTrue(pair.client.isClosed() || pair.server.isClosed(), "hang: " + context);
        // let packets still on the wire arrive and be released
        pair.events.runUntil(() -> false, Long.MAX_VALUE);
        assertTrue(pair.client.connection().isTerminated() && pair.server.connection() != null
                && pair.server.connection().isTerminated(), "not terminated: " + context);
        assertEquals(0, alloc.unreleased(), "leaked buffers: " + context);
        if (pair.client.closeCause() == null && pair.server.closeCause() == null) {
            TransferSupport.assertDelivered(up, pair.server, context);
            TransferSupport.assertDelivered(down, pair.client, context);
            totalBytes += up.length + down.length;
            return new Outcome(null, loss);
        }
        if (pair.client.closeCause() != null) {
            TransferSupport.assertFailedCleanly(pair.client, context);
        }
        if (pair.server.closeCause() != null) {
            TransferSupport.assertFailedCleanly(pair.server, context);
        }
        return new Outcome(context, loss);
    }

    private static int size(Random r) {
        int kind = r.nextInt(10);
        if (kind < 5) {
            return 1 + r.nextInt(16 * 1024);
        }
        if (kind < 9) {
            return 16 * 1024 + r.nextInt(256 * 1024);
        }
        return 1024 * 1024 + r.nextInt(3 * 1024 * 1024);
    }

    private static double pick(Random r, double... values) {
        return values[r.nextInt(values.length)];
    }
}
