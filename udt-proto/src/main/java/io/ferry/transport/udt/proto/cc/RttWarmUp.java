package io.ferry.transport.udt.proto.cc;

/**
 * When UDT's RTT reading can stand for the path's base RTT. UDT's smoothed RTT starts at a 100 ms guess
 * and moves 1/8 of the way per full acknowledgement at each end (draft-gg-udt-03 section 6.2), so on a path
 * longer than 100 ms its early readings are too low, and a base taken from them would hold for ten minutes.
 * This waits until the reading settled: {@link #WARM_UP_ACKS} acknowledgements and half a second after the
 * first of a run of them (sooner once it stops climbing), a second at most when acknowledgements are
 * sparse. An idle sender's pause (a protocol's handshake, then its bulk) starts the count again; a pause
 * with packets in flight (a hole the cumulative ACK waits on) does not.
 *
 * <p>{@link DelayRateControl} grows its rate on acknowledgements meanwhile. Not thread-safe.
 */
final class RttWarmUp {

    /**
     * How long UDT's smoothed RTT is left to converge at most after the first acknowledgement of a run
     * of them, once {@link #WARM_UP_ACKS} acknowledgements came. UDT moves its RTT 1/8 of the way per
     * acknowledgement, and they come every 10 ms only while data flows: a protocol's handshake before its
     * bulk (ferry send's, gRPC's) gets a few, and a base RTT taken then (105-129 ms on a 150 ms path) had
     * FAST cut the rate every round: ferry send over udt moved 1.1-1.7 MiB/s on a 200 Mbit/s link, and a
     * Flight DoGet (a gRPC connection idle since its handshake) 9 Mbit/s.
     */
    static final long WARM_UP_NANOS = 500_000_000L;
    /**
     * A pause in the acknowledgements this long, after one that left the sender idle, starts the
     * warm-up's count again (a handshake's acknowledgements, then the bulk's).
     */
    static final long WARM_UP_IDLE_NANOS = 200_000_000L;
    /**
     * Packets in flight after an acknowledgement up to which the sender counts as idle. A pause that
     * follows an acknowledgement with more in flight is a hole the cumulative ACK waits on (loss behind
     * a deep queue): restarting then had kept the warm-up going for good on a 20 Mbit/s, 100 ms path
     * with 1 % loss and a 150 ms queue, its growth unchecked.
     */
    static final long IDLE_PACKETS = 16;
    /** Acknowledgements the warm-up lasts at least (UDT's RTT then within a few percent of the path's). */
    static final int WARM_UP_ACKS = 40;
    /**
     * The longest a warm-up waits for {@link #WARM_UP_ACKS}, once {@link #CONVERGENCE_ACKS} came. UDT
     * acknowledges only what advances its cumulative ACK, and behind a deep queue with loss each hole
     * holds it for a round trip and a queue: 40 acknowledgements had taken 4-6 s there, all of them at
     * a rate no queue signal could check.
     */
    static final long WARM_UP_MAX_NANOS = 1_000_000_000L;
    /**
     * Acknowledgements a convergence window must hold to say the RTT stopped climbing. UDT's RTT at the
     * sender is the receiver's smoothed RTT smoothed again, and it moves only on full acknowledgements: it
     * can stand still for 40 ms and then climb on, so a window of five acknowledgements and 50 ms ended
     * warm-ups 20 ms short of a 150 ms path.
     */
    static final int CONVERGENCE_ACKS = 10;
    static final double UDT_INITIAL_RTT_MS = 100;
    /** The warm-up ends early once UDT's RTT rose by less than this fraction over {@link #CONVERGENCE_WINDOW_NANOS}. */
    static final double CONVERGED_RISE = 0.02;
    static final long CONVERGENCE_WINDOW_NANOS = 200_000_000L;

    private boolean acknowledged;
    private double warmUpRttMs = Double.NaN;
    private long warmUpRttSince;
    private long warmUpAcks;
    private double warmUpMaxRttMs;
    private long firstAck;
    private long lastAcks;
    private long lastAckAt;
    private long firstAckCount;
    private long inFlightPackets;
    private boolean idleAtLastAck = true;

    /** The packets in flight just after the latest acknowledgement. */
    void inFlight(long packets) {
        this.inFlightPackets = packets;
    }

    /**
     * Feeds one reading once acknowledgements came.
     *
     * @param now          nanoseconds
     * @param rttMs        UDT's smoothed RTT
     * @param acksReceived acknowledgement packets received so far
     * @return whether the reading settled at the path's RTT
     */
    boolean converged(long now, double rttMs, long acksReceived) {
        if (!acknowledged || (acksReceived != lastAcks && now - lastAckAt >= WARM_UP_IDLE_NANOS && idleAtLastAck)) {
            // the first acknowledgement, or the first after an idle pause (a handshake's, then the bulk's):
            // the warm-up counts from here, the acknowledgements before were too sparse to move UDT's RTT
            acknowledged = true;
            firstAck = now;
            firstAckCount = acksReceived;
            warmUpMaxRttMs = 0;
            warmUpRttMs = Double.NaN;
        }
        if (acksReceived != lastAcks) {
            lastAcks = acksReceived;
            lastAckAt = now;
            idleAtLastAck = inFlightPackets <= IDLE_PACKETS;
        }
        warmUpMaxRttMs = Math.max(warmUpMaxRttMs, rttMs);
        // settled: no longer climbing, and at the top of the warm-up (a reading under it is in a dip
        // of the peer's early view, or falls from a handshake's queue; the cap ends those)
        boolean climbing = stillRising(now, rttMs, acksReceived);
        boolean settled = !climbing && rttMs >= warmUpMaxRttMs * (1 - CONVERGED_RISE);
        long acks = acksReceived - firstAckCount;
        return acks >= WARM_UP_ACKS && (now - firstAck >= WARM_UP_NANOS || settled)
                || now - firstAck >= WARM_UP_MAX_NANOS && acks >= CONVERGENCE_ACKS;
    }

    /**
     * Whether UDT's RTT may still be climbing from its guess towards the path's: it rose by more than
     * {@link #CONVERGED_RISE} over the last {@link #CONVERGENCE_WINDOW_NANOS}, or that window has not
     * passed since it left UDT's guess. Smoothed twice, 7/8 per acknowledgement every 10 ms, a reading
     * that climbs that little over ten acknowledgements and 200 ms is within a few percent of the truth;
     * one that falls came from above it, which the minimum follows down.
     */
    private boolean stillRising(long now, double rttMs, long acksReceived) {
        if (Math.abs(rttMs - UDT_INITIAL_RTT_MS) < 1) {
            // still the guess: no acknowledgement has been measured yet, however long it stays
            warmUpRttMs = Double.NaN;
            return true;
        }
        if (Double.isNaN(warmUpRttMs)
                || (now - warmUpRttSince >= CONVERGENCE_WINDOW_NANOS && acksReceived - warmUpAcks >= CONVERGENCE_ACKS)) {
            boolean rising = Double.isNaN(warmUpRttMs) || rttMs > warmUpRttMs * (1 + CONVERGED_RISE);
            warmUpRttMs = rttMs;
            warmUpRttSince = now;
            warmUpAcks = acksReceived;
            return rising;
        }
        return true;
    }
}
