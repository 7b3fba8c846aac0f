package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.cc.CongestionControl;

/**
 * A snapshot of what a {@link UtpConnection} knows of its path: the congestion controller's window and
 * delay estimates, the round trip, the flight and both windows (the shape of quinn's {@code PathStats}).
 * Taken by {@link UtpConnection#pathStats()} for statistics and tests; the connection reads its parts
 * directly.
 *
 * @param congestionControl        the congestion controller's name
 * @param cwndBytes                the congestion window
 * @param bytesInFlight            payload sent, neither acknowledged nor declared lost
 * @param peerWindowBytes          the peer's last advertised receive window
 * @param receiveWindowBytes       the receive window this side advertises
 * @param smoothedRttNanos         the acknowledgement-timed smoothed RTT (RFC 6298), -1 before a sample
 * @param rttVarianceNanos         its variation, -1 before a sample
 * @param reportedRttNanos         the smoothed RTT for statistics: the acknowledgement-timed one where this
 *                                 side has sent data, otherwise the one from the packets' BEP 29 timestamps
 *                                 (what a side that only receives knows); -1 before any sample
 * @param reportedRttVarianceNanos the variation of {@code reportedRttNanos}, -1 before any sample
 * @param rtoNanos                 the retransmission timeout, back-off included
 * @param queuingDelayMicros       the controller's queuing-delay estimate, -1 if unknown
 * @param baseDelayMicros          the controller's base-delay estimate (it includes the offset between the
 *                                 two clocks), -1 if unknown
 */
public record PathStats(String congestionControl, long cwndBytes, long bytesInFlight, long peerWindowBytes,
                        long receiveWindowBytes, long smoothedRttNanos, long rttVarianceNanos, long reportedRttNanos,
                        long reportedRttVarianceNanos, long rtoNanos, long queuingDelayMicros, long baseDelayMicros) {

    /** The snapshot of a connection's parts; {@code timestampRtt} is the round trip its BEP 29 timestamps give. */
    static PathStats of(CongestionControl cc, RttEstimator rtt, RttEstimator timestampRtt, long bytesInFlight,
                        long peerWindowBytes, long receiveWindowBytes) {
        RttEstimator reported = rtt.srttNanos() > 0 ? rtt : timestampRtt;
        return new PathStats(cc.name(), cc.cwndBytes(), bytesInFlight, peerWindowBytes, receiveWindowBytes,
                rtt.srttNanos(), rtt.rttVarNanos(), reported.srttNanos(), reported.rttVarNanos(), rtt.rtoNanos(),
                cc.queuingDelayMicros(), cc.baseDelayMicros());
    }
}
