package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.cc.LedbatPlusPlus;
import io.ferry.transport.ledbat.sim.LinkParams;
import io.ferry.transport.ledbat.sim.SimPair;
import io.ferry.transport.ledbat.sim.TrackingAllocator;

/**
 * A measurement tool, not a test: one {@code ledbat} flow alone on a simulated bottleneck with a 150 ms
 * queue, as the scavenger study's "alone" scenario on the emulator, one run per seed: the link use over
 * 20 s after 10 s, and the yields it raised and took back as false alarms. With {@code STALL_MS > 0} both
 * directions stop for up to that long every 300 ms on average, as an emulator or relay whose thread is
 * descheduled does.
 *
 * <p>Arguments: {@code RATE_MBIT ONE_WAY_MS SEEDS [STALL_MS]}, e.g. {@code 100 10 10 4}. Run it with the
 * module's test class path (see the module README).
 */
public final class LoneFlowSimulation {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;

    public static void main(String[] a) {
        long rate = Long.parseLong(a[0]) * 1_000_000 / 8;
        long oneWay = Long.parseLong(a[1]) * MS;
        int seeds = Integer.parseInt(a[2]);
        double stallMs = a.length > 3 ? Double.parseDouble(a[3]) : 0;
        int full = 0;
        for (long seed = 1; seed <= seeds; seed++) {
            TrackingAllocator alloc = new TrackingAllocator();
            UtpConfig config = UtpConfig.builder().allocator(alloc).sendBufferSize(64 << 20).receiveBufferSize(64 << 20).build();
            SimPair p = new SimPair(seed, LinkParams.delay(oneWay).withBottleneck(rate, rate * 150 / 1000), LinkParams.delay(oneWay),
                    config, config);
            p.client.sendAll(new byte[400 * 1024 * 1024], false);
            p.connect();
            p.events.runFor(10 * SECOND);
            long before = p.server.receivedBytes();
            long end = p.events.now() + 20 * SECOND;
            java.util.Random stalls = new java.util.Random(seed * 31);
            while (p.events.now() < end) {
                if (stallMs <= 0) {
                    p.events.runFor(end - p.events.now());
                    break;
                }
                long gap = (long) (-Math.log(1 - stalls.nextDouble()) * 300 * MS);
                p.events.runFor(Math.max(1, Math.min(gap, end - p.events.now())));
                long stall = (long) (stalls.nextDouble() * stallMs * MS);
                p.clientToServer.pause(stall);
                p.serverToClient.pause(stall);
            }
            double use = (p.server.receivedBytes() - before) / (rate * 20.0);
            LedbatPlusPlus cc = (LedbatPlusPlus) p.client.connection().congestionControl();
            if (use >= 0.95) {
                full++;
            }
            System.out.printf("seed %d: link use %.3f, %d yields, %d taken back as false alarms%n", seed, use, cc.yields(), cc.falseAlarms());
            p.client.abort();
            p.events.runUntil(() -> false, Long.MAX_VALUE);
        }
        System.out.printf("%d of %d runs at 95 %% or more%n", full, seeds);
    }
}
