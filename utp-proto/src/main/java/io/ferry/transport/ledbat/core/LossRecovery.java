package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.wire.PacketReader;

import io.ferry.transport.ledbat.cc.CongestionControl;
import io.ferry.transport.ledbat.wire.UtpWire;

/**
 * Loss recovery of one connection's sending side: which outstanding packets are lost (duplicate
 * ACKs, reordering by transmission order, timeouts), what each loss or timeout tells congestion
 * control, which acknowledgement yields an RTT sample, and when the retransmission timer and the
 * tail-loss probe fire. It decides; the connection puts packets on the wire.
 *
 * <p>The order of events for one acknowledgement: {@link #beginAck}, {@link #noteDelivered} for
 * every packet it newly covers, {@link #rttSample}, then {@link #onProgress} or
 * {@link #onDuplicateAck}, and {@link #afterAck}. Every transmission takes its place in the
 * transmission order from {@link #nextSendOrder}.
 *
 * <p>The retransmission timer (RFC 6298) and the tail-loss probe (RFC 8985 section 7.2) are this class's:
 * it arms and stops them, and the connection reads their deadlines ({@link #retransmissionDeadline},
 * {@link #tailLossProbeDeadline}) for its one wake-up.
 */
final class LossRecovery {
    /** Packets sent after a packet that must be acknowledged before it is declared lost. */
    static final int REORDER_THRESHOLD = 3;
    /** Duplicate ACKs that trigger a fast retransmission. */
    static final int DUPLICATE_ACK_THRESHOLD = 3;
    /**
     * A timeout chain that starts with at most this many packets unacknowledged (or during the
     * handshake) is a thin flow: its first {@link #LINEAR_TIMEOUTS} timeouts do not double the RTO.
     */
    static final int THIN_FLIGHT_PACKETS = 4;
    /**
     * Timeouts of a thin flow retried at the same RTO before exponential back-off starts (as Linux's
     * {@code tcp_thin_linear_timeouts}). When a 1-packet exchange fails with probability q (25 % loss
     * each way gives q = 0.44), doubling from the first timeout makes the expected wait
     * {@code RTO / (1 - 2q)}: eight RTOs at q = 0.44, and unbounded as q nears 0.5. A flow of a few
     * packets per RTO adds no meaningful load while it retries, and a path that is really gone still
     * meets exponential back-off after these.
     */
    static final int LINEAR_TIMEOUTS = 4;
    /**
     * Most tail-loss probes sent, one probe timeout apart, before the retransmission timeout. At 25 %
     * loss each way a probe and its ACK both survive only 56 % of the time, so three probes still
     * ended in the 500 ms timeout in 8 % of the episodes; on a sub-millisecond path those timeouts
     * were most of the transfer time (virtual-time runs, 2.8 MB at 0.1 ms RTT: 12-18 timeouts and
     * 7-10 s with 3 probes, one timeout and 1.7-1.9 s with 10). A silent path costs ten single packets.
     */
    static final int MAX_TAIL_PROBES = 10;
    /**
     * Lower bound of the tail-loss probe timeout (two smoothed RTTs otherwise), as Linux's 2 ms
     * {@code TCP_TIMEOUT_MIN}: a 10 ms floor waited a hundred round trips of a LAN path per probe.
     */
    static final long MIN_PTO_NANOS = 2_000_000L;
    /** Added to the probe timeout when one packet is in flight, for the peer's delayed ACK. */
    static final long PEER_ACK_DELAY_ALLOWANCE_NANOS = 50_000_000L;

    private static final long NONE = Long.MAX_VALUE;

    /** What the connection must do after {@link #onRetransmissionTimeout}. */
    enum TimeoutAction {
        /** Nothing was outstanding: no retransmission. */
        NOTHING,
        /** Too many timeouts in a row: the peer stopped responding; fail the connection. */
        GIVE_UP,
        /** The peer has not confirmed the handshake: repeat our handshake answer (a STATE). */
        REPEAT_HANDSHAKE_ANSWER,
        /** Retransmit the first outstanding packet now (a SYN, or a packet the peer selectively acknowledged). */
        RETRANSMIT_FIRST,
        /** Everything outstanding is marked lost; sending resends it as the window allows. */
        RESEND_LOST
    }

    private final OutstandingPackets outstanding;
    private final CongestionControl cc;
    private final RttEstimator rtt;
    private final ConnectionStats stats;
    /** The retransmission timer's deadline (RFC 6298), NONE when not armed. */
    private long rtoDeadline = NONE;
    /** The tail-loss probe's deadline (RFC 8985 section 7.2), NONE when not armed. */
    private long tlpDeadline = NONE;

    private long sendOrderCounter;
    private long highestDeliveredSendOrder;
    /** The last transmission sent before congestion control last reduced the window on a loss. */
    private long lossReductionOrder;
    private boolean fastRetransmitDue;
    // per acknowledgement
    private long newestAckedSentAt;
    private boolean newestAckedRetransmitted;
    private boolean ackedProbe;
    private long deliveredOrderBefore;
    /** The last sequence number the latest acknowledgement could describe (its ack_nr plus its selective ACK's reach). */
    private int ackHorizonSeq;
    /** The sequence number a tail-loss probe retransmitted, -1 if none is outstanding. */
    private int tlpRetransmitSeq = -1;
    private int duplicateAcks;
    /**
     * Pure acknowledgements without progress since the last progress: each says a packet left the
     * network, and lets one lost packet be sent again beyond the congestion window (see
     * {@link #takeDepartureCredit}).
     */
    private int departures;
    private int consecutiveTimeouts;
    private boolean thinTimeouts;
    /** Tail-loss probes sent since the last acknowledgement of new data or the last timeout. */
    private int tailProbes;

    LossRecovery(OutstandingPackets outstanding, CongestionControl cc, RttEstimator rtt, ConnectionStats stats) {
        this.outstanding = outstanding;
        this.cc = cc;
        this.rtt = rtt;
        this.stats = stats;
    }

    /** The place in the transmission order of a packet about to be sent. */
    long nextSendOrder() {
        return ++sendOrderCounter;
    }

    /** What an acknowledgement did, for the connection; reused, valid until the next {@link #onAck}. */
    static final class AckOutcome {
        /** Payload bytes the cumulative acknowledgement took out of the outstanding packets. */
        long payloadAcked;
        /** The congestion window right after congestion control saw the newly acknowledged bytes; -1 if it saw none. */
        long cwndAfterAck;
        /** The RTT sample the acknowledgement gave, or -1. */
        long rttSample;
    }

    private final AckOutcome ackOutcome = new AckOutcome();

    /**
     * Applies an acknowledgement that covers something outstanding, in one place: the packets it
     * delivers (cumulatively and selectively), the RTT sample, progress or a duplicate acknowledgement,
     * congestion control, loss detection by reordering and the tail-loss probe. The connection's only
     * call for an acknowledgement; the steps below are package-private for the unit tests of each rule.
     *
     * @param ack               the packet, wrapped and valid, whose {@code ack_nr} was sent
     * @param nextSeqNr         the sequence number the connection sends next (an ACK without a selective
     *                          ACK describes everything before it)
     * @param pureAck           a STATE without payload (a duplicate if it covers nothing new)
     * @param timestampRttNanos the RTT the packet's timestamps give, or -1: the sample when Karn's rule gives none
     * @param heldByPacer       whether the pacer held data back at the last send attempt
     * @param nowNanos          the current time
     */
    AckOutcome onAck(PacketReader ack, int nextSeqNr, boolean pureAck, long timestampRttNanos, boolean heldByPacer,
                     long nowNanos) {
        AckOutcome outcome = ackOutcome;
        outcome.payloadAcked = 0;
        outcome.cwndAfterAck = -1;
        int pktAck = ack.ackNr();
        long flightBefore = outstanding.bytesInFlight();
        long newlyAcked = 0;
        // without a selective ACK the peer holds nothing past ack_nr, and says so of every packet
        beginAck(ack.hasSelectiveAck() ? UtpWire.seqAdd(pktAck, 1 + ack.selectiveAckBits()) : nextSeqNr);
        int cumulative = UtpWire.seqDiff(pktAck, UtpWire.seqAdd(outstanding.firstSeq(), -1));
        for (int i = 0; i < cumulative; i++) {
            int seq = outstanding.firstSeq();
            if (!outstanding.isSacked(seq)) {
                noteDelivered(seq, nowNanos);
            }
            outcome.payloadAcked += outstanding.payload(seq);
            newlyAcked += outstanding.removeFirst();
        }
        boolean sackProgress = false;
        if (ack.hasSelectiveAck() && !outstanding.isEmpty()) {
            // a word of the bitmask at a time, visiting only its set bits
            int words = ack.selectiveAckBits() / 32;
            sack:
            for (int w = 0; w < words; w++) {
                for (int bits = ack.selectiveAckWord(w); bits != 0; bits &= bits - 1) {
                    int seq = UtpWire.seqAdd(pktAck, 2 + 32 * w + Integer.numberOfTrailingZeros(bits));
                    if (!outstanding.contains(seq)) {
                        break sack;
                    }
                    if (outstanding.isSacked(seq)) {
                        continue;
                    }
                    noteDelivered(seq, nowNanos);
                    newlyAcked += outstanding.markSacked(seq);
                    sackProgress = true;
                }
            }
        }
        long rttSample = rttSample(nowNanos);
        boolean progress = cumulative > 0 || sackProgress;
        if (rttSample < 0 && progress) {
            rttSample = timestampRttNanos;
        }
        if (rttSample >= 0) {
            rtt.onSample(rttSample);
        }
        outcome.rttSample = rttSample;
        if (progress) {
            onProgress(nowNanos);
        } else if (pureAck) {
            onDuplicateAck(nowNanos);
        }
        if (newlyAcked > 0) {
            cc.onPacerHeld(heldByPacer);
            cc.onAck(newlyAcked, flightBefore, rttSample, nowNanos);
            outcome.cwndAfterAck = cc.cwndBytes();
        }
        afterAck(progress, nowNanos);
        return outcome;
    }

    /**
     * Starts processing an acknowledgement that covers something outstanding.
     *
     * @param horizonSeq the last sequence number it can describe: its {@code ack_nr} plus the packets
     *                   its selective ACK covers. A packet past it may have arrived without the
     *                   acknowledgement being able to say so (BEP 29's bitmask has a fixed reach,
     *                   1024 packets in Ferry's, 32 in libutp's), so it is never declared lost by
     *                   reordering; with a flight longer than that reach, a hole's retransmission
     *                   arriving would otherwise declare everything past the reach lost and send it twice.
     */
    void beginAck(int horizonSeq) {
        ackHorizonSeq = horizonSeq;
        deliveredOrderBefore = highestDeliveredSendOrder;
        newestAckedSentAt = Long.MIN_VALUE;
        newestAckedRetransmitted = false;
        ackedProbe = false;
    }

    /**
     * Notes that {@code seq}, still outstanding, was newly acknowledged: tracks the most recently sent
     * packet this acknowledgement covers (for the RTT sample) and the latest transmission known to have
     * been delivered (for loss detection). A retransmission counts as delivered only when its ACK came
     * at least a minimum RTT after it was sent; sooner, the ACK may be for an earlier transmission
     * (RFC 8985, step 2). Letting retransmissions count is what detects a lost retransmission without
     * waiting for a timeout.
     */
    void noteDelivered(int seq, long nowNanos) {
        long sentAt = outstanding.sentAtNanos(seq);
        boolean retransmitted = outstanding.transmissions(seq) > 1;
        if (sentAt > newestAckedSentAt) {
            newestAckedSentAt = sentAt;
            newestAckedRetransmitted = retransmitted;
        }
        if (!retransmitted || (rtt.minRttNanos() > 0 && nowNanos - sentAt >= rtt.minRttNanos())) {
            highestDeliveredSendOrder = Math.max(highestDeliveredSendOrder, outstanding.sendOrder(seq));
        }
        if (seq == tlpRetransmitSeq) {
            ackedProbe = true;
        }
    }

    /**
     * The RTT sample of this acknowledgement, or -1. Karn's rule, applied to the packet that made the
     * peer send it: the most recently sent of those it newly covers. Sampling an older,
     * never-retransmitted packet instead (e.g. one whose selective ACK was lost, now covered by the
     * cumulative ACK a retransmission triggered) would measure how long the hole lasted, not the path:
     * under heavy loss such samples inflate SRTT and the RTO to many seconds.
     */
    long rttSample(long nowNanos) {
        return newestAckedSentAt != Long.MIN_VALUE && !newestAckedRetransmitted ? nowNanos - newestAckedSentAt : -1;
    }

    /** The acknowledgement covered new data: the timeout chain ends and the retransmission timer restarts. */
    void onProgress(long nowNanos) {
        consecutiveTimeouts = 0;
        duplicateAcks = 0;
        departures = 0;
        rtt.resetBackOff();
        rtoDeadline = outstanding.isEmpty() ? NONE : nowNanos + rtt.rtoNanos();
    }

    /** A pure acknowledgement that covered nothing new: the third in a row declares the first packet lost. */
    void onDuplicateAck(long nowNanos) {
        departures++;
        if (++duplicateAcks < DUPLICATE_ACK_THRESHOLD) {
            return;
        }
        duplicateAcks = 0;
        int first = outstanding.firstSeq();
        if (outstanding.transmissions(first) == 1 && outstanding.isInFlight(first)) {
            declareLost(first, nowNanos);
        }
    }

    /**
     * Finishes an acknowledgement (after congestion control has seen the bytes it acknowledged):
     * detects losses by reordering, and if it made progress settles the tail-loss probe.
     */
    void afterAck(boolean progress, long nowNanos) {
        if (highestDeliveredSendOrder > deliveredOrderBefore) {
            detectLossByReordering(nowNanos);
        }
        if (progress) {
            if (ackedProbe) {
                // without DSACK we cannot tell whether the probe or the original arrived: assume the
                // probe repaired a loss, as RFC 8985 (7.4.2) does when no DSACK comes
                if (cc.onLoss(nowNanos, rtt.srttNanos())) {
                    lossReductionOrder = sendOrderCounter;
                }
            }
            if (ackedProbe || tlpRetransmitSeq < 0 || !outstanding.contains(tlpRetransmitSeq)) {
                tlpRetransmitSeq = -1;
            }
            // re-armed by the connection once the retransmissions this ACK allows are in flight
            tailProbes = 0;
            tlpDeadline = NONE;
        }
    }

    /**
     * Declares lost every packet still in flight whose transmission was followed by at least
     * {@link #REORDER_THRESHOLD} transmissions that have been acknowledged; with fewer packets in
     * flight the threshold drops to one less than their number (early retransmit, RFC 5827), so a
     * small window does not have to wait for a timeout. The order is that of transmissions, not of
     * sequence numbers, so a retransmission that is lost again is detected like any other packet once
     * something sent after it is acknowledged (see {@link #noteDelivered}).
     *
     * <p>A packet past the acknowledgement's horizon that meets the same test has left the network
     * too, but it may well have arrived (the bitmask cannot say), so it is not sent again: it is only
     * taken out of the flight ({@link OutstandingPackets#markDeparted}), and declared lost once an
     * acknowledgement that reaches it does not cover it. Counting such packets in flight is what
     * stalled recovery after a burst loss with a flight of thousands of packets (a receiver's socket
     * buffer overflowing on loopback): the packets the receiver held past the reach filled the
     * congestion window, so the known holes went out one tail-loss probe at a time, for seconds to
     * minutes; TCP's SACK scoreboard knows them as delivered.
     */
    private void detectLossByReordering(long nowNanos) {
        int unsacked = outstanding.packetsInFlight() + outstanding.departedPackets();
        int threshold = Math.max(1, Math.min(REORDER_THRESHOLD, unsacked - 1));
        int n = outstanding.count();
        int seq = outstanding.firstSeq();
        for (int i = 0; i < n; i++, seq = UtpWire.seqAdd(seq, 1)) {
            boolean withinHorizon = UtpWire.seqDiff(seq, ackHorizonSeq) <= 0;
            if (outstanding.isDeparted(seq)) {
                if (withinHorizon) {
                    declareLost(seq, nowNanos);
                }
                continue;
            }
            if (!outstanding.isInFlight(seq)) {
                continue;
            }
            boolean eligible = outstanding.sendOrder(seq) + threshold <= highestDeliveredSendOrder;
            if (eligible) {
                if (withinHorizon) {
                    declareLost(seq, nowNanos);
                } else {
                    outstanding.markDeparted(seq);
                }
            } else if (outstanding.transmissions(seq) == 1) {
                // first transmissions are in send order: every later one is newer still
                return;
            }
        }
    }

    /**
     * Marks {@code seq} lost and reports the loss to congestion control - unless the lost transmission
     * went out before the window was last reduced: that reduction already answered the congestion it
     * met (RFC 6675's recovery point, by transmission order). Without this, a loss detected a little
     * more than an RTT after the one that cut the window - typically a lost retransmission - cuts it
     * again for the same event, and at random-loss rates the window spends its time at the minimum.
     */
    private void declareLost(int seq, long nowNanos) {
        long order = outstanding.sendOrder(seq);
        outstanding.markLost(seq);
        stats.packetsLost++;
        if (order > lossReductionOrder && cc.onLoss(nowNanos, rtt.srttNanos())) {
            lossReductionOrder = sendOrderCounter;
            fastRetransmitDue = true;
        }
    }

    /**
     * Whether the next retransmission is the first of a loss episode, which goes out at once whatever
     * the window (RFC 5681 / RFC 6675 fast retransmit): the window was just reduced and may be full of
     * packets that are lost too but not yet known to be. Taking it clears it.
     */
    /**
     * Whether a lost packet may be sent again although the congestion window is full, taking one
     * departure: a packet acknowledged without progress has left the network (TCP's fast recovery
     * counts duplicate ACKs the same way). Without it a hole whose repair the window blocks waits for
     * the retransmission timeout while the peer keeps receiving: the packets past the reach of the
     * selective ACK ({@value io.ferry.transport.ledbat.wire.SelectiveAckBitmap#MAX_BITS} packets) stay
     * counted in flight until the hole is filled, and a window cut below them (a slowdown's two packets,
     * a halving) leaves no room. Departures are forgotten at the next progress.
     */
    boolean takeDepartureCredit() {
        if (departures <= 0) {
            return false;
        }
        departures--;
        return true;
    }

    boolean takeFastRetransmit() {
        boolean due = fastRetransmitDue;
        fastRetransmitDue = false;
        return due;
    }

    /**
     * The retransmission timer fired. Counts the timeout, backs the RTO off (not for a thin flow's
     * first {@link #LINEAR_TIMEOUTS}), and once the handshake is complete tells congestion control,
     * marks everything outstanding lost and restarts the timer.
     *
     * @param handshaking     the peer has not confirmed the connection yet
     * @param synSent         we are the initiator still waiting for the handshake answer
     * @param maxRetransmits  timeouts in a row after which the connection gives up
     */
    TimeoutAction onRetransmissionTimeout(boolean handshaking, boolean synSent, int maxRetransmits, long nowNanos) {
        rtoDeadline = NONE;
        tlpDeadline = NONE;
        if (outstanding.isEmpty() && !handshaking) {
            return TimeoutAction.NOTHING;
        }
        if (consecutiveTimeouts == 0) {
            thinTimeouts = synSent || handshaking || outstanding.unsackedPackets() <= THIN_FLIGHT_PACKETS;
        }
        consecutiveTimeouts++;
        stats.timeouts++;
        if (consecutiveTimeouts > maxRetransmits) {
            return TimeoutAction.GIVE_UP;
        }
        if (!thinTimeouts || consecutiveTimeouts > LINEAR_TIMEOUTS) {
            rtt.backOff();
        }
        rtoDeadline = nowNanos + rtt.rtoNanos();
        if (handshaking && !synSent) {
            return TimeoutAction.REPEAT_HANDSHAKE_ANSWER;
        }
        if (!synSent) {
            // a lost SYN (or its answer) says nothing of the path's capacity: no data has been sent, and
            // a slow start that ends at half of the initial window would crawl in congestion avoidance
            // from two packets (RFC 6298 5.7 only shrinks the initial window)
            cc.onTimeout(nowNanos);
        }
        lossReductionOrder = sendOrderCounter;
        fastRetransmitDue = false;
        duplicateAcks = 0;
        tlpRetransmitSeq = -1;
        int seq = outstanding.firstSeq();
        for (int i = 0, n = outstanding.count(); i < n; i++, seq = UtpWire.seqAdd(seq, 1)) {
            outstanding.markLost(seq);
        }
        tailProbes = 0;
        if (synSent || outstanding.firstLost() < 0) {
            // a SYN goes again at once; and when everything outstanding was selectively acknowledged
            // and every later acknowledgement was lost, only a repeated packet makes the receiver send
            // its cumulative ACK again
            return TimeoutAction.RETRANSMIT_FIRST;
        }
        // the timeout's first resend goes at once, like a fast retransmission: not behind the pacer
        fastRetransmitDue = true;
        return TimeoutAction.RESEND_LOST;
    }

    /** The handshake was confirmed: the timeouts of the handshake answer no longer count. */
    void resetTimeouts() {
        consecutiveTimeouts = 0;
    }

    /** Consecutive retransmission timeouts without progress. */
    int consecutiveTimeouts() {
        return consecutiveTimeouts;
    }

    /**
     * The tail-loss probe fired with packets in flight: counts it and returns the packet to repair
     * first, a known lost one still waiting for room in the window, or -1 if none (then the connection
     * sends new data if it can, else {@link #lastInFlightForProbe}).
     */
    int onTailLossProbe() {
        tlpDeadline = NONE;
        tailProbes++;
        stats.tailLossProbes++;
        return outstanding.firstLost();
    }

    /**
     * The newest packet in flight, to send again as a probe (remembered: its acknowledgement counts as
     * a repaired loss), or -1 if none is in flight.
     */
    int lastInFlightForProbe() {
        int seq = UtpWire.seqAdd(outstanding.firstSeq(), outstanding.count() - 1);
        for (int i = outstanding.count(); i > 0; i--, seq = UtpWire.seqAdd(seq, -1)) {
            if (outstanding.isInFlight(seq)) {
                tlpRetransmitSeq = seq;
                return seq;
            }
        }
        return -1;
    }

    /**
     * (Re)arms the tail-loss probe two smoothed RTTs from now (plus the peer's possible ACK delay when
     * a single packet is in flight) if packets are in flight, fewer than {@link #MAX_TAIL_PROBES} were
     * sent since the last progress or timeout, and the probe would come before the retransmission
     * timeout. {@code established}: the connection is up and the peer confirmed it.
     */
    void armTailLossProbe(boolean established, long nowNanos) {
        tlpDeadline = NONE;
        long srtt = rtt.srttNanos();
        if (tailProbes >= MAX_TAIL_PROBES || srtt <= 0 || !established || outstanding.packetsInFlight() == 0) {
            return;
        }
        long pto = 2 * srtt + (outstanding.packetsInFlight() == 1 ? PEER_ACK_DELAY_ALLOWANCE_NANOS : 0);
        long deadline = nowNanos + Math.max(pto, MIN_PTO_NANOS);
        if (deadline < rtoDeadline) {
            tlpDeadline = deadline;
        }
    }

    /** When the retransmission timer fires, NONE when it is not armed. */
    long retransmissionDeadline() {
        return rtoDeadline;
    }

    /** When the tail-loss probe fires, NONE when it is not armed. */
    long tailLossProbeDeadline() {
        return tlpDeadline;
    }

    /** A packet left: the retransmission timer runs from now unless it already runs (RFC 6298 5.1). */
    void onTransmitted(long nowNanos) {
        if (rtoDeadline == NONE) {
            rtoDeadline = nowNanos + rtt.rtoNanos();
        }
    }

    /** Restarts the retransmission timer at one RTO from now (an acceptor's answer to a SYN). */
    void restartRetransmissionTimer(long nowNanos) {
        rtoDeadline = nowNanos + rtt.rtoNanos();
    }

    /** Stops the retransmission timer (nothing to retransmit, or nothing more may be). */
    void stopRetransmissionTimer() {
        rtoDeadline = NONE;
    }

    /** Stops the tail-loss probe. */
    void stopTailLossProbe() {
        tlpDeadline = NONE;
    }
}
