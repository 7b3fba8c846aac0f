package io.ferry.transport.striped;

import io.ferry.transport.TransportStatistics;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.function.LongConsumer;

/**
 * A striped connection's statistics from its members': bytes counted by the striped channel itself,
 * round trip, its variation and the queuing delay the worst member's, windows, retransmissions, losses,
 * bandwidth and rate summed over the members that report them. A figure no member reports is left out.
 */
final class StripedStatistics {

    private StripedStatistics() {
    }

    static TransportStatistics of(String transport, StripedChannel striped) {
        List<TransportStatistics> each = striped.memberStatistics();
        String implementation = (each.isEmpty() ? "" : each.get(0).implementation() + " ") + "striped x" + striped.memberCount();
        TransportStatistics.Builder b = TransportStatistics.builder(transport, implementation)
                .bytesSent(striped.bytesSent()).bytesReceived(striped.bytesReceived());
        worst(each, TransportStatistics::smoothedRtt, b::smoothedRttMicros);
        worst(each, TransportStatistics::rttVariance, b::rttVarianceMicros);
        worst(each, TransportStatistics::queuingDelay, b::queuingDelayMicros);
        sum(each, TransportStatistics::congestionWindowBytes, b::congestionWindowBytes);
        sum(each, TransportStatistics::retransmissions, b::retransmissions);
        sum(each, TransportStatistics::packetsLost, b::packetsLost);
        sum(each, TransportStatistics::estimatedBandwidth, b::estimatedBandwidth);
        sum(each, TransportStatistics::sendRate, b::sendRate);
        return b.build();
    }

    /** The largest of the members' durations, in microseconds, if any member reports one. */
    private static void worst(List<TransportStatistics> each, Function<TransportStatistics, Optional<Duration>> figure,
                              LongConsumer set) {
        each.stream().map(figure).flatMap(Optional::stream).mapToLong(d -> d.toNanos() / 1000).max().ifPresent(set);
    }

    /** The sum of the members' figures over those that report one, if any does. */
    private static void sum(List<TransportStatistics> each, Function<TransportStatistics, OptionalLong> figure,
                            LongConsumer set) {
        long total = 0;
        boolean any = false;
        for (TransportStatistics s : each) {
            OptionalLong v = figure.apply(s);
            if (v.isPresent()) {
                total += v.getAsLong();
                any = true;
            }
        }
        if (any) {
            set.accept(total);
        }
    }
}
