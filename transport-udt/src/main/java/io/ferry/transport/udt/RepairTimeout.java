package io.ferry.transport.udt;

/**
 * How long UDT's sender waits for a silent peer before it resends what is unacknowledged: the EXP timer,
 * which Ferry's control sets through {@code CCC.setRTO}.
 *
 * <p>UDT4 (4.11) repeats no NAK. A receiver stuck at a hole whose repair was lost as well has nothing new
 * to acknowledge and says nothing, and only the sender's EXP timer resends the hole. UDT's own timer waits
 * {@code k × max(RTT + 4·RTTVar + 10 ms, 300 ms)} after the k-th expiry in a row, so a repair lost twice
 * stops delivery for 0.9 s, and at 1 % loss on a 20 ms path a 60 s flow showed gaps of 1.3-1.9 s.
 *
 * <p>A peer that keeps receiving acknowledges every 10 ms, so silence for two round trips and two
 * acknowledgement intervals, on a path that is losing packets (NAKs came in the last second) while the
 * sender's own window, not the peer's receive buffer, holds it back, means such a hole: the timer then
 * starts there (at least 60 ms) and doubles with each silent expiry, never waiting longer than UDT's own.
 * Otherwise UDT's own timing stands: on a clean path a pause of the peer's process (a collection, a busy
 * machine) must not resend a whole window, and with an application that stopped reading, the peer's
 * buffer binds. UDT's dead-peer rule (more than 16 expiries and over 5 s of silence) is reached at the
 * same expiry either way.
 */
final class RepairTimeout {

    /** UDT4's least EXP interval, per expiry in a row. */
    static final double UDT_MIN_EXP_MS = 300;
    /** UDT acknowledges (and times) every 10 ms. */
    static final double SYN_MS = 10;
    /** The least wait for a stuck hole's repair. */
    static final double MIN_REPAIR_MS = 60;
    /** NAKs this recent say the path is losing packets. */
    static final long RECENT_LOSS_NANOS = 1_000_000_000L;

    private RepairTimeout() {
    }

    /**
     * @param rttMs           UDT's smoothed RTT
     * @param silentExpiries  EXP expiries since the peer last answered (0 while it answers)
     * @param holeLikely      whether a stuck hole is the likely cause of a silence: the path lost packets
     *                        lately and the sender's own window, not the peer's, holds it back
     * @return the timeout in microseconds, whole milliseconds
     */
    static int micros(double rttMs, int silentExpiries, boolean holeLikely) {
        int expiry = Math.min(silentExpiries, 30) + 1;
        double rtt = Double.isFinite(rttMs) && rttMs > 0 ? rttMs : DelayRateControl.UDT_INITIAL_RTT_MS;
        // UDT's own: RTT + 4 RTTVar taken as twice the RTT
        double udtMs = Math.max(expiry * 2 * rtt + SYN_MS, expiry * UDT_MIN_EXP_MS);
        double ms = !holeLikely ? udtMs
                : Math.min(udtMs, Math.max(MIN_REPAIR_MS, 2 * rtt + 2 * SYN_MS) * Math.pow(2, expiry - 1));
        return (int) Math.ceil(ms) * 1000;
    }
}
