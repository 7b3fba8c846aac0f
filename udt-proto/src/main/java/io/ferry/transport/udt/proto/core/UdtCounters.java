package io.ferry.transport.udt.proto.core;

/**
 * What a {@link UdtConnection} counted so far, as one snapshot for statistics, logs and tests; zeros
 * before the handshake completed.
 *
 * @param packetsSent              data packets sent for the first time
 * @param packetsResent            data packets sent again (NAK, EXP)
 * @param bytesSent                payload bytes sent for the first time
 * @param packetsReceived          data packets received
 * @param duplicatePackets         data packets received twice, or before the window
 * @param packetsDroppedForSpace   data packets dropped because the receive buffer was full of unread data
 * @param packetsReportedLost      packets the peer's NAKs reported lost
 * @param capacityPacketsPerSecond the peer's latest link-capacity estimate (draft-gg-udt-03 §6.2), 0 before one came
 * @param pacingRateBytesPerSecond the rate the sender paced at when it last sent ({@link Long#MAX_VALUE}: unpaced)
 */
public record UdtCounters(long packetsSent, long packetsResent, long bytesSent, long packetsReceived, long duplicatePackets,
                          long packetsDroppedForSpace, long packetsReportedLost, int capacityPacketsPerSecond,
                          long pacingRateBytesPerSecond) {
}
