package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.sim.LinkParams;
import io.ferry.transport.ledbat.sim.RenoFlow;
import io.ferry.transport.ledbat.sim.SimPair;
import io.ferry.transport.ledbat.sim.TrackingAllocator;

/**
 * A measurement tool, not a test: a uTP connection and a simulated Reno flow start together on one
 * bottleneck and run 30 s of virtual time; prints each one's goodput over the last 25 s, the scavenger's
 * share, the link use and the packets uTP lost.
 *
 * <p>Arguments: {@code RATE_BYTES_PER_S ONE_WAY_MS QUEUE_MS LOSS [SEED]}, e.g. {@code 12500000 10 2 0}
 * for 100 Mbit/s, 20 ms RTT and a 2 ms queue (shallower than the 5 ms target). Run it with the module's
 * test class path (see the module README).
 */
public final class ShallowQueueSimulation {
    public static void main(String[] a) {
        long rate = Long.parseLong(a[0]);
        long oneWay = Long.parseLong(a[1]) * 1_000_000L;
        double queueMs = Double.parseDouble(a[2]);
        double loss = Double.parseDouble(a[3]);
        long seed = a.length > 4 ? Long.parseLong(a[4]) : 11;
        long queue = (long) (rate * queueMs / 1000);
        TrackingAllocator alloc = new TrackingAllocator();
        SimPair p = new SimPair(seed, LinkParams.delay(oneWay).withBottleneck(rate, queue).withLoss(loss), LinkParams.delay(oneWay),
                UtpConfig.builder().allocator(alloc).build(), UtpConfig.builder().allocator(alloc).build());
        p.client.sendAll(new byte[256 * 1024 * 1024], false);
        p.connect();
        RenoFlow reno = new RenoFlow(p.events, p.clientToServer, oneWay);
        reno.start();
        long lastS = 0, lastC = 0;
        long totS = 0, totC = 0;
        for (int i = 0; i < 30; i++) {
            p.events.runFor(1_000_000_000L);
            long s = p.server.receivedBytes() - lastS, c = reno.deliveredBytes() - lastC;
            lastS = p.server.receivedBytes();
            lastC = reno.deliveredBytes();
            if (i >= 5) { totS += s; totC += c; }
        }
        UtpConnection cn = p.client.connection();
        System.out.printf("rate %d queue %.1f ms loss %.2f: utp %.2f MB/s reno %.2f MB/s share %.2f use %.2f lost=%d%n", rate, queueMs, loss,
                totS / 25e6, totC / 25e6, totS / (double) (totS + totC), (totS + totC) / 25.0 / rate, cn.stats().packetsLost());
        reno.stop();
        p.client.abort();
        p.events.runUntil(() -> false, Long.MAX_VALUE);
    }
}
