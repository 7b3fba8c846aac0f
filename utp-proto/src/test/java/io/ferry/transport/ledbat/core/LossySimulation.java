package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.sim.LinkParams;
import io.ferry.transport.ledbat.sim.SimPair;
import io.ferry.transport.ledbat.sim.TrackingAllocator;

/**
 * A measurement tool, not a test: transfers over a lossy simulated path in virtual time, one per seed,
 * and prints the time, goodput, mean window, losses, timeouts and tail-loss probes of each (with
 * {@code TRACE=1} in the environment, the window every 500 ms of virtual time, and every timeout;
 * {@code JITTER_US=N} adds up to N microseconds of random delay to each packet, which reorders them).
 *
 * <p>Arguments: {@code LOSS ONE_WAY_MS BYTES SEEDS [RATE_BYTES_PER_S QUEUE_BYTES]} (milliseconds may be fractional), e.g.
 * {@code 0.25 25 2800000 20} for the seed's 25 % loss each way over a 50 ms RTT. Run it with the
 * module's test class path (see the module README).
 */
public final class LossySimulation {
    public static void main(String[] a) {
        double loss = Double.parseDouble(a[0]);
        long oneWay = (long) (Double.parseDouble(a[1]) * 1_000_000L);
        int size = Integer.parseInt(a[2]);
        int seeds = Integer.parseInt(a[3]);
        long rate = a.length > 4 ? Long.parseLong(a[4]) : 0;
        long queue = a.length > 5 ? Long.parseLong(a[5]) : 0;
        double sum = 0;
        for (long seed = 1; seed <= seeds; seed++) {
            TrackingAllocator alloc = new TrackingAllocator();
            LinkParams lp = LinkParams.delay(oneWay).withLoss(loss);
            if (rate > 0) lp = lp.withBottleneck(rate, queue);
            if (System.getenv("JITTER_US") != null) lp = lp.withJitter(Long.parseLong(System.getenv("JITTER_US")) * 1000);
            SimPair p = new SimPair(seed, lp, UtpConfig.builder().allocator(alloc).build());
            byte[] up = TransferSupport.randomBytes(p.random, size);
            p.client.sendAll(up, true);
            p.server.sendAll(new byte[0], true);
            p.client.closeWhenDone();
            p.server.closeWhenDone();
            long start = p.events.now();
            p.connect();
            long[] next = {start};
            double[] cw = {0};
            long[] n = {0};
            long[] to = {0};
            p.clientToServer.setObserver(packet -> {
                UtpConnection c = p.client.connection();
                if (c == null) return;
                cw[0] += c.pathStats().cwndBytes(); n[0]++;
                if (c.stats().timeouts() > to[0]) {
                    to[0] = c.stats().timeouts();
                    System.out.printf("  TIMEOUT at %.2f s state=%s cwnd=%d recv=%d%n", (p.events.now() - start) / 1e9, c.state(), c.pathStats().cwndBytes(), p.server.receivedBytes());
                }
                if (System.getenv("TRACE") != null && p.events.now() >= next[0]) {
                    next[0] += 500_000_000L;
                    System.out.printf("  t=%.1f cwnd=%d inflight=%d srtt=%d rto=%d q=%d sent=%d lost=%d to=%d tlp=%d%n", (p.events.now() - start) / 1e9,
                            c.pathStats().cwndBytes(), c.pathStats().bytesInFlight(), c.pathStats().smoothedRttNanos() / 1000000, c.pathStats().rtoNanos() / 1000000, c.pathStats().queuingDelayMicros(),
                            c.stats().packetsSent(), c.stats().packetsLost(), c.stats().timeouts(), c.stats().tailLossProbes());
                }
            });
            boolean ok = p.run(p.server::isEndOfStream, 30 * 60 * 1_000_000_000L);
            double secs = (p.events.now() - start) / 1e9;
            UtpConnection c = p.client.connection();
            System.out.printf("seed %d ok=%s %.2f s %.1f kB/s meancwnd=%.0f sent=%d lost=%d to=%d tlp=%d%n", seed, ok, secs, size / secs / 1000,
                    cw[0] / n[0], c.stats().packetsSent(), c.stats().packetsLost(), c.stats().timeouts(), c.stats().tailLossProbes());
            UtpConnection sc = p.server.connection();
            System.out.printf("   linkdrops=%d/%d dupsAtServer=%d serverRecv=%d retrans=%d%n", p.clientToServer.packetsDropped(), p.clientToServer.packetsOffered(),
                    sc.stats().duplicatePacketsReceived(), sc.stats().packetsReceived(), c.stats().retransmissions());
            sum += secs;
        }
        System.out.printf("mean %.2f s%n", sum / seeds);
    }
}
