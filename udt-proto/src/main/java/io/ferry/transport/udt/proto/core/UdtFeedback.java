package io.ferry.transport.udt.proto.core;

import io.ferry.transport.ledbat.cc.CongestionControl;
import io.ferry.transport.udt.proto.cc.UdtRateFeedback;
import io.ferry.transport.udt.proto.wire.LossList;
import io.ferry.transport.udt.proto.wire.SeqNumbers;
import io.ferry.transport.udt.proto.wire.UdtPacket;
import io.netty.buffer.ByteBuf;

/**
 * What the sending side does with the peer's ACKs and NAKs (draft-gg-udt-03 §6.1): a full ACK is answered
 * with an ACK2, moves the acknowledged edge and the flow window, feeds the RTT estimate and, with the
 * receiver's arrival rate and link capacity, the rate control; a light ACK only moves the edge; a NAK's
 * compressed loss list puts packets back in the sender's loss list and tells the control. An ACK that moves
 * the edge, or any NAK, shows that the peer hears us and ends an expiry's loss window ({@link UdtExpiry}).
 * Created once the connection is established; {@link UdtConnection} routes the packets here.
 */
final class UdtFeedback {
    private final UdtConnection connection;
    private final UdtSender sender;
    private final CongestionControl cc;
    private final UdtExpiry expiry;
    private final UdtRtt rtt;
    private int capacityPackets;
    private long lossReports;

    UdtFeedback(UdtConnection connection, UdtSender sender, CongestionControl cc, UdtRtt rtt, UdtExpiry expiry) {
        this.connection = connection;
        this.expiry = expiry;
        this.sender = sender;
        this.cc = cc;
        this.rtt = rtt;
    }

    void onAck(ByteBuf p, long nowNanos) {
        int body = UdtPacket.bodyLength(p);
        if (body < 4) {
            return;
        }
        long ack = SeqNumbers.widen(UdtPacket.bodyWord(p, 0), sender.lastAck());
        if (ack > sender.next() || ack < sender.lastAck() - (1L << 29)) {
            return;
        }
        if (body < 16) { // a light ACK: the edge only
            int before = (int) (ack - sender.lastAck());
            if (before > 0) {
                sender.flowWindow(sender.flowWindow() - before);
                acked(sender.onAck(ack), -1, nowNanos);
            }
            return;
        }
        ByteBuf ack2 = connection.control(UdtPacket.ACK2, UdtPacket.secondWord(p), 4);
        ack2.writeInt(0);
        connection.transmit(ack2);
        if (ack >= sender.lastAck()) {
            sender.flowWindow(UdtPacket.bodyWord(p, 3));
        }
        int rttMicros = UdtPacket.bodyWord(p, 1);
        if (rttMicros > 0) {
            rtt.sample(rttMicros);
        }
        if (body >= 24) {
            int link = UdtPacket.bodyWord(p, 5);
            if (link > 0) {
                capacityPackets = link;
            }
            if (cc instanceof UdtRateFeedback f) {
                f.onPeerRates(UdtPacket.bodyWord(p, 4), link);
            }
        }
        cc.onDelaySample(rttMicros, nowNanos);
        acked(ack > sender.lastAck() ? sender.onAck(ack) : 0, rttMicros > 0 ? rttMicros * 1000L : -1, nowNanos);
    }

    private void acked(long bytes, long rttSampleNanos, long nowNanos) {
        if (bytes > 0) {
            expiry.acknowledged();
        }
        cc.onAck(bytes, sender.unackedBytes() + bytes, rttSampleNanos, nowNanos);
    }

    void onNak(ByteBuf p, long nowNanos) {
        expiry.acknowledged(); // the peer names what it lacks: it hears us, and its list is exact
        long[] lowest = {Long.MAX_VALUE, 0};
        long near = sender.lastAck();
        boolean ok = LossList.read(p, p.readerIndex() + UdtPacket.HEADER_BYTES, UdtPacket.bodyLength(p) / 4, (first, last) -> {
            long f = SeqNumbers.widen(first, near);
            long l = SeqNumbers.widen(last, f);
            lowest[1] += Math.max(0, l - f + 1);
            if (sender.onLoss(f, l) > 0 || f >= near) {
                lowest[0] = Math.min(lowest[0], f);
            }
        });
        if (!ok || lowest[0] == Long.MAX_VALUE) {
            return;
        }
        lossReports += lowest[1];
        if (cc instanceof UdtRateFeedback f) {
            f.onLossReport(lowest[0], lowest[1], sender.next() - 1);
        } else {
            cc.onLoss(nowNanos, rtt.micros() * 1000L);
        }
    }

    /** Packets the peer's NAKs reported lost. */
    long lossReports() {
        return lossReports;
    }

    /** The peer's latest link-capacity estimate, packets per second; 0 before one came. */
    int capacityPacketsPerSecond() {
        return capacityPackets;
    }
}
