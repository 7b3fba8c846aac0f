package io.ferry.transport.quic;

import io.ferry.transport.TransportStatistics;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicConnectionPathStats;
import io.netty.handler.codec.quic.QuicConnectionStats;

/**
 * A QUIC connection's {@link TransportStatistics}: application bytes from Ferry's own counts, the rest from
 * quiche (the path's smoothed RTT, congestion window and delivery rate; the connection's lost and
 * retransmitted packets). Read on the connection's event loop, where the codec answers at once.
 */
final class QuicStatistics {

    private QuicStatistics() {
    }

    static TransportStatistics empty(String implementation) {
        return TransportStatistics.builder(QuicTransport.NAME, implementation).build();
    }

    /** A snapshot; once the connection is gone, {@code last} with the final byte counts. */
    static TransportStatistics of(QuicChannel quic, boolean closed, Receipts receipts, String implementation,
                                  TransportStatistics last) {
        TransportStatistics.Builder b = TransportStatistics.builder(QuicTransport.NAME, implementation)
                .bytesSent(receipts.handed()).bytesReceived(receipts.received());
        if (quic == null || closed || !quic.isActive()) {
            if (last != null) {
                copyNetwork(last, b);
            }
            return b.build();
        }
        QuicConnectionStats stats = quic.collectStats().getNow();
        if (stats != null) {
            b.packetsLost(stats.lost()).retransmissions(stats.retrans());
        }
        QuicConnectionPathStats path = quic.collectPathStats(0).getNow();
        if (path != null) {
            b.smoothedRttMicros(path.rtt() / 1_000).congestionWindowBytes(path.cwnd());
            if (path.deliveryRate() > 0) {
                b.estimatedBandwidth(path.deliveryRate());
            }
        }
        return b.build();
    }

    private static void copyNetwork(TransportStatistics from, TransportStatistics.Builder to) {
        from.smoothedRtt().ifPresent(d -> to.smoothedRttMicros(d.toNanos() / 1_000));
        from.congestionWindowBytes().ifPresent(to::congestionWindowBytes);
        from.packetsLost().ifPresent(to::packetsLost);
        from.retransmissions().ifPresent(to::retransmissions);
        from.estimatedBandwidth().ifPresent(to::estimatedBandwidth);
    }
}
