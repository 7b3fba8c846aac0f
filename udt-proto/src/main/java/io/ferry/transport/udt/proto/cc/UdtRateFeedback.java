package io.ferry.transport.udt.proto.cc;

/**
 * What a UDT connection tells a rate controller beyond {@link io.ferry.transport.ledbat.cc.CongestionControl}:
 * the receiver's measured arrival rate and link capacity from each full ACK (draft-gg-udt-03 section
 * 6.2), the sequence numbers of each loss report, and the peer's flow window. A controller of the
 * zoo that does not implement it is told of losses through {@code onLoss} instead.
 */
public interface UdtRateFeedback {

    /**
     * The rates a full ACK carried, as the receiver measured them (the controller smooths them).
     *
     * @param arrivalPacketsPerSecond the receiver's packet arrival rate, 0 if unknown
     * @param capacityPacketsPerSecond the receiver's link-capacity estimate, 0 if unknown
     */
    void onPeerRates(int arrivalPacketsPerSecond, int capacityPacketsPerSecond);

    /**
     * A NAK arrived.
     *
     * @param firstLost the lowest sequence count it reports
     * @param lostCount how many packets it reports
     * @param sentUpTo  the highest sequence count sent so far
     */
    void onLossReport(long firstLost, long lostCount, long sentUpTo);

    /** The largest window the flow control allows, in packets. */
    void setMaxWindowPackets(int packets);
}
