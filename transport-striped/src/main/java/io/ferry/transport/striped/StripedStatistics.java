package io.ferry.transport.striped;

import io.ferry.transport.TransportStatistics;

import java.util.List;

/**
 * A striped connection's statistics from its members': bytes counted by the striped channel itself,
 * round trip, its variation and the queuing delay the worst member's, windows, retransmissions, losses,
 * bandwidth and rate summed over the members that report them.
 */
final class StripedStatistics {

    private StripedStatistics() {
    }

    static TransportStatistics of(String transport, StripedChannel striped) {
        List<TransportStatistics> each = striped.memberStatistics();
        String implementation = (each.isEmpty() ? "" : each.get(0).implementation() + " ") + "striped x" + striped.memberCount();
        TransportStatistics.Builder b = TransportStatistics.builder(transport, implementation)
                .bytesSent(striped.bytesSent()).bytesReceived(striped.bytesReceived());
        long rtt = -1;
        long rttVar = -1;
        long cwnd = -1;
        long retransmissions = -1;
        long lost = -1;
        long queuing = -1;
        long bandwidth = -1;
        long rate = -1;
        for (TransportStatistics s : each) {
            rtt = max(rtt, s.smoothedRtt().map(d -> d.toNanos() / 1000).orElse(-1L));
            rttVar = max(rttVar, s.rttVariance().map(d -> d.toNanos() / 1000).orElse(-1L));
            queuing = max(queuing, s.queuingDelay().map(d -> d.toNanos() / 1000).orElse(-1L));
            cwnd = sum(cwnd, s.congestionWindowBytes());
            retransmissions = sum(retransmissions, s.retransmissions());
            lost = sum(lost, s.packetsLost());
            bandwidth = sum(bandwidth, s.estimatedBandwidth());
            rate = sum(rate, s.sendRate());
        }
        if (rtt >= 0) {
            b.smoothedRttMicros(rtt);
        }
        if (rttVar >= 0) {
            b.rttVarianceMicros(rttVar);
        }
        if (queuing >= 0) {
            b.queuingDelayMicros(queuing);
        }
        if (cwnd >= 0) {
            b.congestionWindowBytes(cwnd);
        }
        if (retransmissions >= 0) {
            b.retransmissions(retransmissions);
        }
        if (lost >= 0) {
            b.packetsLost(lost);
        }
        if (bandwidth >= 0) {
            b.estimatedBandwidth(bandwidth);
        }
        if (rate >= 0) {
            b.sendRate(rate);
        }
        return b.build();
    }

    private static long max(long a, long b) {
        return Math.max(a, b);
    }

    private static long sum(long total, java.util.OptionalLong value) {
        if (value.isEmpty()) {
            return total;
        }
        return Math.max(total, 0) + value.getAsLong();
    }
}
