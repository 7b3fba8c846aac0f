package io.ferry.transport.ledbat.channel;

import io.ferry.transport.TransportStatistics;
import io.ferry.transport.ledbat.core.ConnectionStats;
import io.ferry.transport.ledbat.core.PathStats;
import io.ferry.transport.ledbat.core.UtpConnection;

/** A uTP channel's {@link TransportStatistics}: the connection's counters, window, round trip and queuing delay. */
final class UtpChannelStatistics {

    private UtpChannelStatistics() {
    }

    /** A snapshot of {@code connection} (null before the connect: names only); on the connection's event loop. */
    static TransportStatistics of(UtpConnection connection, String implementation) {
        TransportStatistics.Builder b = TransportStatistics.builder(UtpTransport.NAME, implementation);
        if (connection != null) {
            ConnectionStats s = connection.stats();
            PathStats path = connection.pathStats();
            b.bytesSent(s.distinctPayloadBytesSent()).bytesReceived(s.payloadBytesReceived())
                    .retransmissions(s.retransmissions()).packetsLost(s.packetsLost())
                    .congestionWindowBytes(path.cwndBytes());
            if (path.reportedRttNanos() > 0) {
                b.smoothedRttMicros(path.reportedRttNanos() / 1000)
                        .rttVarianceMicros(Math.max(0, path.reportedRttVarianceNanos()) / 1000);
            }
            if (path.queuingDelayMicros() >= 0) {
                b.queuingDelayMicros(path.queuingDelayMicros());
            }
        }
        return b.build();
    }
}
