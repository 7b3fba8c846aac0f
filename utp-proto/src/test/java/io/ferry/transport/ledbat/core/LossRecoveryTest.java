package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.cc.CongestionControl;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LossRecovery} on its own: an {@link OutstandingPackets} filled by hand, a congestion control
 * that records what it is told, and the timers it arms. Real acknowledgements go through the entry point
 * the connection calls ({@link LossRecovery#onAck}); the rules are also checked step by step
 * ({@code beginAck}, {@code noteDelivered}, ...), where an acknowledgement's reach smaller than a real
 * bitmask's 32 packets keeps a scenario short.
 */
class LossRecoveryTest {
    private static final long MS = 1_000_000L;
    private static final int PAYLOAD = 1000;

    private final OutstandingPackets outstanding = new OutstandingPackets();
    private final RecordingControl cc = new RecordingControl();
    private final RttEstimator rtt = new RttEstimator(200 * MS, 60_000 * MS);
    private final ConnectionStats stats = new ConnectionStats();
    private final LossRecovery recovery = new LossRecovery(outstanding, cc, rtt, stats);
    private int nextSeq = 100;

    @AfterEach
    void release() {
        outstanding.releaseAll();
    }

    /** Sends {@code n} new packets at {@code now}; returns the first one's sequence number. */
    private int send(int n, long now) {
        int first = nextSeq;
        for (int i = 0; i < n; i++) {
            outstanding.add(nextSeq, Unpooled.buffer(PAYLOAD + UtpWire.HEADER_SIZE), PAYLOAD);
            resend(nextSeq, now);
            nextSeq = UtpWire.seqAdd(nextSeq, 1);
        }
        return first;
    }

    private void resend(int seq, long now) {
        outstanding.onSent(seq, now, recovery.nextSendOrder());
        recovery.onTransmitted(now);
    }

    /** A selective acknowledgement of {@code seqs}, as the connection processes one. */
    private long sack(long now, int... seqs) {
        return sackReaching(nextSeq, now, seqs);
    }

    /** A selective acknowledgement of {@code seqs} whose bitmask describes nothing past {@code horizon}. */
    private long sackReaching(int horizon, long now, int... seqs) {
        recovery.beginAck(horizon);
        for (int seq : seqs) {
            recovery.noteDelivered(seq, now);
            outstanding.markSacked(seq);
        }
        long sample = recovery.rttSample(now);
        recovery.onProgress(now);
        recovery.afterAck(true, now);
        return sample;
    }

    /** A cumulative acknowledgement of the first {@code n} outstanding packets. */
    private long cumulative(long now, int n) {
        recovery.beginAck(nextSeq);
        for (int i = 0; i < n; i++) {
            int seq = outstanding.firstSeq();
            if (!outstanding.isSacked(seq)) {
                recovery.noteDelivered(seq, now);
            }
            outstanding.removeFirst();
        }
        long sample = recovery.rttSample(now);
        recovery.onProgress(now);
        recovery.afterAck(true, now);
        return sample;
    }

    private void duplicateAck(long now) {
        recovery.beginAck(nextSeq);
        recovery.onDuplicateAck(now);
        recovery.afterAck(false, now);
    }

    /** A real STATE packet: {@code ack_nr}, and a selective ACK of {@code ack_nr + 2 + bit} for each bit. */
    private static io.netty.buffer.ByteBuf state(int ackNr, int... sackBits) {
        io.netty.buffer.ByteBuf b = Unpooled.buffer();
        io.ferry.transport.ledbat.wire.SelectiveAckBitmap bitmap = new io.ferry.transport.ledbat.wire.SelectiveAckBitmap();
        for (int bit : sackBits) {
            bitmap.set(bit);
        }
        io.ferry.transport.ledbat.wire.PacketWriter.writeHeader(b, io.ferry.transport.ledbat.wire.PacketType.STATE,
                bitmap.isEmpty() ? UtpWire.EXTENSION_NONE : 1, 7, 0, 0, 1 << 20, 1, ackNr);
        if (!bitmap.isEmpty()) {
            io.ferry.transport.ledbat.wire.PacketWriter.writeSelectiveAck(b, UtpWire.EXTENSION_NONE, bitmap);
        }
        return b;
    }

    private LossRecovery.AckOutcome onAck(io.netty.buffer.ByteBuf packet, boolean pacerHeld, long now) {
        io.ferry.transport.ledbat.wire.PacketReader reader = new io.ferry.transport.ledbat.wire.PacketReader();
        assertEquals(io.ferry.transport.ledbat.wire.PacketValidity.VALID, reader.wrap(packet));
        try {
            return recovery.onAck(reader, nextSeq, true, 77 * MS, pacerHeld, now);
        } finally {
            packet.release();
        }
    }

    @Test
    void anAcknowledgementThroughTheEntryPointDeliversSamplesTellsCongestionControlAndFindsTheLoss() {
        int first = send(6, 0);
        send(1, 10 * MS);
        // cumulative up to first, selectively first + 2 .. first + 4 (bits 0..2) and first + 6 (bit 4)
        LossRecovery.AckOutcome out = onAck(state(first, 0, 1, 2, 4), true, 60 * MS);
        assertEquals(PAYLOAD, out.payloadAcked, "the cumulative part left the outstanding packets");
        assertEquals(50 * MS, out.rttSample, "from the newest packet covered, sent at 10 ms");
        assertEquals(5 * PAYLOAD, cc.ackedBytes, "congestion control saw everything newly acknowledged");
        assertEquals(7 * PAYLOAD, cc.flightBeforeAck);
        assertEquals(50 * MS, cc.ackRttSample);
        assertTrue(cc.pacerHeld);
        assertEquals(cc.cwndBytes(), out.cwndAfterAck);
        assertEquals(50 * MS, rtt.srttNanos(), "the RTT estimator took the sample");
        assertEquals(first + 1, outstanding.firstLost(), "four later deliveries: first + 1 is lost");
        assertFalse(outstanding.isInFlight(first + 5),
                "with two packets unaccounted for the threshold drops to one (early retransmit): lost too");
        assertEquals(1, cc.reductions, "one congestion event");

        // nothing new: a duplicate; no RTT sample, no bytes for congestion control
        out = onAck(state(first, 0, 1, 2, 4), false, 70 * MS);
        assertEquals(0, out.payloadAcked);
        assertEquals(-1, out.rttSample);
        assertEquals(-1, out.cwndAfterAck);
        assertEquals(5 * PAYLOAD, cc.ackedBytes);
    }

    @Test
    void withoutAKarnSampleTheEntryPointFallsBackToTheTimestampsRtt() {
        int first = send(2, 0);
        outstanding.markLost(first);
        outstanding.markLost(first + 1);
        resend(first, 20 * MS);
        resend(first + 1, 20 * MS);
        LossRecovery.AckOutcome out = onAck(state(first + 1), false, 100 * MS);
        assertEquals(77 * MS, out.rttSample, "both covered packets were retransmitted: the timestamps' RTT");
        assertEquals(2 * PAYLOAD, out.payloadAcked);
    }

    @Test
    void threePacketsDeliveredAfterOneDeclareItLostOnceAndAskForAFastRetransmission() {
        int first = send(10, 0);
        sack(50 * MS, first + 1, first + 2);
        assertEquals(-1, outstanding.firstLost(), "two later deliveries are not yet enough");
        sack(51 * MS, first + 3);
        assertEquals(first, outstanding.firstLost());
        assertEquals(1, cc.losses);
        assertTrue(recovery.takeFastRetransmit());
        assertFalse(recovery.takeFastRetransmit(), "only the first retransmission of an episode skips the window");
        assertEquals(1, stats.packetsLost);
    }

    @Test
    void eachAcknowledgementWithoutProgressLetsOneLostPacketGoBeyondTheWindowUntilTheNextProgress() {
        int first = send(10, 0);
        assertFalse(recovery.takeDepartureCredit(), "nothing has left the network unaccounted for");
        duplicateAck(50 * MS);
        duplicateAck(51 * MS);
        duplicateAck(52 * MS);
        assertEquals(first, outstanding.firstLost());
        for (int i = 0; i < 3; i++) {
            assertTrue(recovery.takeDepartureCredit(), "one per packet that left: " + i);
        }
        assertFalse(recovery.takeDepartureCredit(), "three acknowledgements, three packets");
        duplicateAck(53 * MS);
        sack(54 * MS, first + 5);
        assertFalse(recovery.takeDepartureCredit(), "progress: the flight shrank, and the window rules again");
    }

    @Test
    void withFewPacketsInFlightTheThresholdDropsSoATailNeedNotWaitForATimeout() {
        int first = send(2, 0);
        sack(50 * MS, first + 1);
        assertEquals(first, outstanding.firstLost(), "early retransmit: one later delivery of two in flight");
    }

    @Test
    void lossesFromTheFlightAlreadyAnsweredByAReductionDoNotCutTheWindowAgain() {
        int first = send(20, 0);
        sack(50 * MS, first + 2, first + 3, first + 4, first + 5);
        assertEquals(1, cc.reductions, "packets first and first+1: one congestion event");
        // the retransmission of first goes out after the reduction; later losses of the old flight
        // are the same event
        resend(first, 51 * MS);
        sack(60 * MS, first + 6, first + 7, first + 8, first + 9, first + 10, first + 14);
        assertEquals(3, stats.packetsLost, "first + 11 is lost too");
        assertEquals(1, cc.reductions);
        // a packet sent after the reduction and lost is a new event
        int late = send(1, 70 * MS);
        send(3, 71 * MS);
        sack(130 * MS, first, late + 1, late + 2, late + 3);
        assertFalse(outstanding.isInFlight(late) || outstanding.isSacked(late), "late was declared lost");
        assertEquals(2, cc.reductions, "a packet sent after the reduction and lost is a new event");
    }

    @Test
    void aLostRetransmissionIsFoundByTransmissionOrderWithoutATimeout() {
        int first = send(6, 0);
        sack(100 * MS, first + 1, first + 2, first + 3);
        assertEquals(first, outstanding.firstLost());
        resend(first, 101 * MS);
        int later = send(3, 102 * MS);
        assertEquals(-1, outstanding.firstLost());
        // the three sent after the retransmission arrive, it does not: it is lost again
        sack(210 * MS, later, later + 1, later + 2);
        assertEquals(first, outstanding.firstLost());
        assertEquals(0, stats.timeouts);
    }

    @Test
    void packetsPastTheReachOfTheSelectiveAckAreNotDeclaredLostByTheDeliveryOfALaterTransmission() {
        int first = send(10, 0);
        sack(100 * MS, first + 1, first + 2, first + 3);
        rtt.onSample(100 * MS);
        assertEquals(first, outstanding.firstLost());
        resend(first, 101 * MS);
        // the retransmission arrives (a minimum RTT later); the acknowledgement's bitmask reaches only
        // first + 5, so first + 6 and first + 7 (sent at least three transmissions before it) may have
        // arrived too: not lost, but no longer in flight; first + 8 and first + 9 may still be on the way
        recovery.beginAck(UtpWire.seqAdd(first, 5));
        recovery.noteDelivered(first, 300 * MS);
        outstanding.removeFirst();
        recovery.onProgress(300 * MS);
        recovery.afterAck(true, 300 * MS);
        assertFalse(outstanding.isInFlight(first + 4), "inside the reach and sent before the delivered retransmission: lost");
        assertFalse(outstanding.isInFlight(first + 5), "the last packet the bitmask reaches");
        assertEquals(first + 4, outstanding.firstLost());
        for (int seq = first + 6; seq < first + 8; seq++) {
            assertTrue(outstanding.isDeparted(seq), "past the reach: departed, " + seq);
            assertFalse(outstanding.isInFlight(seq), "past the reach: out of the flight, " + seq);
        }
        assertTrue(outstanding.isInFlight(first + 8), "sent too shortly before the delivered one: reordering, not loss");
        assertTrue(outstanding.isInFlight(first + 9));
        assertEquals(2 * PAYLOAD, outstanding.bytesInFlight(), "only what may still be on the way");
        assertEquals(6, outstanding.unsackedPackets(), "two lost, two departed, two in flight");
    }

    @Test
    void aDepartedPacketIsLostOnlyOnceAnAcknowledgementThatReachesItLeavesItOut() {
        int first = send(12, 0);
        rtt.onSample(100 * MS);
        // the last packet delivered, reach ending at first + 5: first .. first + 5 lost, first + 6 .. + 8
        // departed, first + 9 and + 10 (sent too shortly before the delivered one) still in flight
        sackReaching(UtpWire.seqAdd(first, 5), 100 * MS, first + 11);
        assertTrue(outstanding.isDeparted(first + 6));
        assertTrue(outstanding.isDeparted(first + 8));
        assertTrue(outstanding.isInFlight(first + 9));
        // the repairs are acknowledged with a bitmask that reaches everything: first + 6 arrived, + 7 .. + 10 did not
        for (int seq = first; seq <= first + 5; seq++) {
            resend(seq, 110 * MS);
        }
        recovery.beginAck(UtpWire.seqAdd(first, 11));
        for (int i = 0; i < 6; i++) {
            recovery.noteDelivered(outstanding.firstSeq(), 220 * MS);
            outstanding.removeFirst();
        }
        recovery.noteDelivered(first + 6, 220 * MS);
        outstanding.markSacked(first + 6);
        recovery.onProgress(220 * MS);
        recovery.afterAck(true, 220 * MS);
        assertTrue(outstanding.isSacked(first + 6));
        assertEquals(first + 7, outstanding.firstLost(), "reached and not covered: lost");
        assertFalse(outstanding.isDeparted(first + 8));
        assertEquals(4, outstanding.unsackedPackets(), "first + 7 .. first + 10, all lost");
        assertEquals(0, outstanding.departedPackets());
        assertEquals(0, outstanding.bytesInFlight());
    }

    @Test
    void aTimeoutDeclaresDepartedPacketsLostWithTheRest() {
        int first = send(6, 0);
        rtt.onSample(100 * MS);
        sackReaching(UtpWire.seqAdd(first, 1), 100 * MS, first + 5);
        assertTrue(outstanding.isDeparted(first + 2));
        recovery.onRetransmissionTimeout(false, false, 10, 2_000 * MS);
        assertEquals(0, outstanding.departedPackets());
        assertEquals(5, outstanding.unsackedPackets());
        assertEquals(first, outstanding.firstLost());
    }

    @Test
    void theRttSampleComesFromTheNewestPacketCoveredAndNeverFromARetransmission() {
        int first = send(1, 0);
        send(1, 10 * MS);
        assertEquals(40 * MS, cumulative(50 * MS, 2), "the newest of the packets covered: sent at 10 ms");
        int older = send(1, 100 * MS);
        int newer = send(1, 110 * MS);
        outstanding.markLost(newer);
        resend(newer, 300 * MS);
        assertEquals(-1, cumulative(320 * MS, 2),
                "Karn: the newest covered packet was retransmitted, and the older original is no sample of the path");
        assertEquals(first + 2, older);
    }

    @Test
    void threeDuplicateAcksDeclareTheFirstPacketLost() {
        int first = send(4, 0);
        duplicateAck(10 * MS);
        duplicateAck(11 * MS);
        assertEquals(-1, outstanding.firstLost());
        duplicateAck(12 * MS);
        assertEquals(first, outstanding.firstLost());
    }

    @Test
    void aThinFlowsFirstTimeoutsKeepTheRtoThenBackOffAndFinallyGiveUp() {
        send(2, 0);
        long rto = rtt.rtoNanos();
        long now = 0;
        for (int i = 1; i <= LossRecovery.LINEAR_TIMEOUTS; i++) {
            now = recovery.retransmissionDeadline();
            LossRecovery.TimeoutAction action = recovery.onRetransmissionTimeout(false, false, 8, now);
            assertEquals(LossRecovery.TimeoutAction.RESEND_LOST, action);
            assertEquals(rto, rtt.rtoNanos(), "timeout " + i + " of a thin flow does not double the RTO");
            assertEquals(now + rto, recovery.retransmissionDeadline());
        }
        now = recovery.retransmissionDeadline();
        recovery.onRetransmissionTimeout(false, false, 8, now);
        assertEquals(2 * rto, rtt.rtoNanos(), "then exponential back-off");
        assertEquals(LossRecovery.LINEAR_TIMEOUTS + 1, cc.timeouts);
        for (int i = recovery.consecutiveTimeouts(); i < 8; i++) {
            recovery.onRetransmissionTimeout(false, false, 8, recovery.retransmissionDeadline());
        }
        assertEquals(LossRecovery.TimeoutAction.GIVE_UP, recovery.onRetransmissionTimeout(false, false, 8, recovery.retransmissionDeadline()));
    }

    @Test
    void aTimeoutMarksEverythingLostAndSendsOnlyItsFirstResendAtOnce() {
        int first = send(10, 0);
        sack(50 * MS, first + 1, first + 2, first + 3);
        assertEquals(first, outstanding.firstLost());
        assertEquals(LossRecovery.TimeoutAction.RESEND_LOST, recovery.onRetransmissionTimeout(false, false, 8, recovery.retransmissionDeadline()));
        assertEquals(0, outstanding.packetsInFlight());
        assertEquals(first, outstanding.firstLost());
        assertEquals(1, cc.timeouts);
        assertTrue(recovery.takeFastRetransmit(), "the timeout's first resend goes at once, not behind the pacer");
        assertFalse(recovery.takeFastRetransmit(), "the others wait for the window and the pacer");
    }

    @Test
    void whenEverythingOutstandingWasSelectivelyAcknowledgedATimeoutRepeatsTheFirstPacket() {
        int first = send(2, 0);
        sack(50 * MS, first, first + 1);
        assertEquals(LossRecovery.TimeoutAction.RETRANSMIT_FIRST,
                recovery.onRetransmissionTimeout(false, false, 8, recovery.retransmissionDeadline()),
                "only a repeated packet makes the receiver send its lost cumulative ACK again");
    }

    @Test
    void beforeTheHandshakeIsConfirmedATimeoutRepeatsTheAnswerAndLeavesTheWindowAlone() {
        long rto = rtt.rtoNanos();
        assertEquals(LossRecovery.TimeoutAction.REPEAT_HANDSHAKE_ANSWER,
                recovery.onRetransmissionTimeout(true, false, 8, 1_000 * MS));
        assertEquals(0, cc.timeouts);
        assertEquals(1_000 * MS + rto, recovery.retransmissionDeadline(), "a handshake is thin: the RTO is not doubled");
    }

    @Test
    void anUnansweredSynIsSentAgainAtOnceAndLeavesCongestionControlAlone() {
        send(1, 0);
        assertEquals(LossRecovery.TimeoutAction.RETRANSMIT_FIRST,
                recovery.onRetransmissionTimeout(false, true, 8, recovery.retransmissionDeadline()));
        // a lost SYN says nothing of the path: told as a timeout, the controller would halve its
        // slow-start threshold to a packet or two before any data went out
        assertEquals(0, cc.timeouts);
        assertEquals(1, stats.timeouts);
    }

    @Test
    void tailLossProbesComeTwoRttsAfterTheLastSendAndStopAfterTheirLimit() {
        send(1, 0);
        rtt.onSample(50 * MS);
        send(3, 100 * MS);
        recovery.armTailLossProbe(true, 100 * MS);
        assertEquals(100 * MS + 2 * rtt.srttNanos(), recovery.tailLossProbeDeadline());

        recovery.armTailLossProbe(false, 100 * MS);
        assertEquals(Long.MAX_VALUE, recovery.tailLossProbeDeadline(), "not before the connection is established");

        int probes = 0;
        long now = 100 * MS;
        recovery.armTailLossProbe(true, now);
        while (recovery.tailLossProbeDeadline() != Long.MAX_VALUE) {
            now = recovery.tailLossProbeDeadline();
            assertEquals(-1, recovery.onTailLossProbe(), "nothing is known lost");
            assertEquals(UtpWire.seqAdd(nextSeq, -1), recovery.lastInFlightForProbe());
            probes++;
            recovery.restartRetransmissionTimer(now + 10_000 * MS); // far off: the probe comes first
            recovery.armTailLossProbe(true, now);
        }
        assertEquals(LossRecovery.MAX_TAIL_PROBES, probes);
        assertEquals(LossRecovery.MAX_TAIL_PROBES, stats.tailLossProbes);
    }

    @Test
    void aSinglePacketInFlightAllowsForThePeersDelayedAckAndTheProbeNeverOutlastsTheTimeout() {
        send(1, 0);
        rtt.onSample(50 * MS);
        recovery.armTailLossProbe(true, 0);
        assertEquals(2 * rtt.srttNanos() + LossRecovery.PEER_ACK_DELAY_ALLOWANCE_NANOS, recovery.tailLossProbeDeadline());
        recovery.restartRetransmissionTimer(60 * MS - rtt.rtoNanos()); // the timeout at 60 ms, before the probe
        recovery.armTailLossProbe(true, 0);
        assertEquals(Long.MAX_VALUE, recovery.tailLossProbeDeadline());
    }

    @Test
    void anAcknowledgedProbeIsTakenForARepairedLoss() {
        send(1, 0);
        rtt.onSample(50 * MS);
        recovery.armTailLossProbe(true, 0);
        recovery.onTailLossProbe();
        int probe = recovery.lastInFlightForProbe();
        resend(probe, 200 * MS);
        sack(260 * MS, probe);
        assertEquals(1, cc.losses, "without DSACK the probe is assumed to have repaired a loss");
    }

    /** Counts what it is told; its window never changes. */
    private static final class RecordingControl implements CongestionControl {
        /** Calls of {@code onLoss}: every one is a reduction, as this control always reduces. */
        int losses;
        int reductions;
        int timeouts;

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public void onDelaySample(int delayMicros32, long nowNanos) {
        }

        long ackedBytes;
        long flightBeforeAck;
        long ackRttSample;
        boolean pacerHeld;

        @Override
        public void onAck(long bytesNewlyAcked, long bytesInFlightBeforeAck, long rttSampleNanos, long nowNanos) {
            ackedBytes += bytesNewlyAcked;
            flightBeforeAck = bytesInFlightBeforeAck;
            ackRttSample = rttSampleNanos;
        }

        @Override
        public void onPacerHeld(boolean held) {
            pacerHeld = held;
        }

        @Override
        public boolean onLoss(long nowNanos, long smoothedRttNanos) {
            losses++;
            reductions++;
            return true;
        }

        @Override
        public void onTimeout(long nowNanos) {
            timeouts++;
        }

        @Override
        public long cwndBytes() {
            return 1_000_000;
        }
    }
}
