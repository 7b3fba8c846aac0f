package io.ferry.transport.udt;

import io.ferry.transport.TransportStatistics;
import io.ferry.transport.udt.proto.core.UdtConnection;
import io.ferry.transport.udt.proto.core.UdtCounters;

/**
 * A UDT channel's {@link TransportStatistics}: the application's bytes both ways (Ferry's frame headers
 * not counted), UDT's RTT and its variance, the congestion window, retransmissions, packets the peer
 * reported lost, the receiver's packet-pair capacity estimate and the rate the sender paces at.
 */
final class UdtChannelStatistics {

    private UdtChannelStatistics() {
    }

    /**
     * A snapshot of {@code connection} (null or not yet connected: names only); on its event loop.
     *
     * @param framingBytesSent frame-header bytes this side sent, taken off the bytes sent
     * @param payloadReceived  the application's bytes received
     */
    static TransportStatistics of(UdtConnection connection, String implementation, long framingBytesSent, long payloadReceived) {
        TransportStatistics.Builder b = TransportStatistics.builder(UdtTransport.NAME, implementation);
        if (connection == null || connection.payloadBytes() == 0) {
            return b.build();
        }
        UdtCounters counters = connection.counters();
        b.bytesSent(Math.max(0, counters.bytesSent() - framingBytesSent)).bytesReceived(payloadReceived)
                .retransmissions(counters.packetsResent()).packetsLost(counters.packetsReportedLost())
                .smoothedRttMicros(connection.rttMicros()).rttVarianceMicros(connection.rttVarianceMicros())
                .congestionWindowBytes(Math.min(Integer.MAX_VALUE, connection.congestionControl().cwndBytes()));
        if (counters.capacityPacketsPerSecond() > 0) {
            b.estimatedBandwidth((long) counters.capacityPacketsPerSecond() * connection.payloadBytes());
        }
        long rate = counters.pacingRateBytesPerSecond();
        if (rate > 0 && rate != Long.MAX_VALUE) {
            b.sendRate(rate);
        }
        return b.build();
    }
}
