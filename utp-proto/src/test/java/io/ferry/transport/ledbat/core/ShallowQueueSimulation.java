package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.sim.LinkParams;
import io.ferry.transport.ledbat.sim.RenoFlow;
import io.ferry.transport.ledbat.sim.SimPair;
import io.ferry.transport.ledbat.sim.TrackingAllocator;

/**
 * A measurement tool, not a test: a uTP connection and a simulated Reno flow start together on one
 * bottleneck and run 30 s of virtual time; prints each one's goodput over the last five sixths, the scavenger's
 * share, the link use and the packets uTP lost.
 *
 * <p>Arguments: {@code RATE_BYTES_PER_S ONE_WAY_MS QUEUE_MS LOSS [SEED [SECONDS]]} (milliseconds may be
 * fractional; {@code TRACE=1} in the environment prints every second, {@code CC=NAME} picks the controller), e.g. {@code 12500000 10 2 0}
 * for 100 Mbit/s, 20 ms RTT and a 2 ms queue (shallower than the 5 ms target). Run it with the module's
 * test class path (see the module README).
 */
public final class ShallowQueueSimulation {
    public static void main(String[] a) {
        long rate = Long.parseLong(a[0]);
        long oneWay = (long) (Double.parseDouble(a[1]) * 1_000_000L);
        double queueMs = Double.parseDouble(a[2]);
        double loss = Double.parseDouble(a[3]);
        long seed = a.length > 4 ? Long.parseLong(a[4]) : 11;
        int seconds = a.length > 5 ? Integer.parseInt(a[5]) : 30;
        int skip = seconds / 6;
        long queue = (long) (rate * queueMs / 1000);
        TrackingAllocator alloc = new TrackingAllocator();
        SimPair p = new SimPair(seed, LinkParams.delay(oneWay).withBottleneck(rate, queue).withLoss(loss), LinkParams.delay(oneWay),
                config(alloc), config(alloc));
        byte[] data = new byte[256 * 1024 * 1024];
        p.client.sendAll(data, false);
        p.connect();
        RenoFlow reno = new RenoFlow(p.events, p.clientToServer, oneWay);
        reno.start();
        long lastS = 0, lastC = 0;
        long totS = 0, totC = 0;
        for (int i = 0; i < seconds; i++) {
            for (int tick = 0; tick < 100; tick++) {
                p.events.runFor(10_000_000L);
                if (p.client.sentBytes() == data.length) {
                    p.client.sendAll(data, false); // never short of data
                }
            }
            long s = p.server.receivedBytes() - lastS, c = reno.deliveredBytes() - lastC;
            lastS = p.server.receivedBytes();
            lastC = reno.deliveredBytes();
            if (System.getenv("TRACE") != null) {
                UtpConnection t = p.client.connection();
                System.out.printf("  %2d s: utp %.2f MB/s reno %.2f MB/s %s cwnd %d srtt %d us lost %d timeouts %d%n", i + 1,
                        s / 1e6, c / 1e6, t.state(), t.pathStats().cwndBytes(), t.pathStats().smoothedRttNanos() / 1000,
                        t.stats().packetsLost(), t.stats().timeouts());
            }
            if (i >= skip) { totS += s; totC += c; }
        }
        UtpConnection cn = p.client.connection();
        System.out.printf("rate %d queue %.1f ms loss %.2f: utp %.2f MB/s reno %.2f MB/s share %.2f use %.2f lost=%d%n", rate, queueMs, loss,
                totS / 1e6 / (seconds - skip), totC / 1e6 / (seconds - skip), totS / (double) (totS + totC),
                (totS + totC) / (double) (seconds - skip) / rate, cn.stats().packetsLost());
        reno.stop();
        p.client.abort();
        p.events.runUntil(() -> false, Long.MAX_VALUE);
    }

    /** The settings, with the controller {@code CC} names in the environment (the default otherwise). */
    private static UtpConfig config(TrackingAllocator alloc) {
        UtpConfig.Builder b = UtpConfig.builder().allocator(alloc);
        return (System.getenv("CC") != null ? b.congestionControl(System.getenv("CC")) : b).build();
    }
}
