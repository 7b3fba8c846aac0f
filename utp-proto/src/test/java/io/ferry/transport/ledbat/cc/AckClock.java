package io.ferry.transport.ledbat.cc;

import java.util.ArrayDeque;

/**
 * A deterministic, window-limited path for driving one controller directly: no bottleneck and no
 * queue, every packet acknowledged (one acknowledgement per packet) exactly one fixed RTT after it was
 * sent, and as many packets sent after each acknowledgement as the window allows. The time is virtual;
 * a loss is whatever the test says it is ({@link #loss()}).
 */
final class AckClock {
    final CongestionControl cc;
    final int mss;
    final long rttNanos;
    private final ArrayDeque<Long> inFlight = new ArrayDeque<>();
    private long now;

    AckClock(CongestionControl cc, int mss, long rttNanos) {
        this.cc = cc;
        this.mss = mss;
        this.rttNanos = rttNanos;
        this.now = 1_000_000_000L;
        fill();
    }

    long now() {
        return now;
    }

    long flight() {
        return (long) inFlight.size() * mss;
    }

    /** Delivers acknowledgements (and sends what they allow) until {@code nanos} have passed. */
    void runFor(long nanos) {
        long end = now + nanos;
        while (!inFlight.isEmpty() && inFlight.peekFirst() + rttNanos <= end) {
            now = inFlight.peekFirst() + rttNanos;
            long flightBefore = flight();
            inFlight.pollFirst();
            cc.onPacerHeld(false);
            cc.onAck(mss, flightBefore, rttNanos, now);
            fill();
        }
        now = end;
    }

    /** Runs until the window reaches {@code bytes} (it must be growing). */
    void runUntilWindow(long bytes) {
        while (cc.cwndBytes() < bytes) {
            runFor(rttNanos / 4);
        }
    }

    /** Reports a loss now; the packet is taken as repaired by the core, so the flight is unchanged. */
    boolean loss() {
        return cc.onLoss(now, rttNanos);
    }

    private void fill() {
        while (flight() + mss <= cc.cwndBytes()) {
            cc.onPacketSent(mss, false, flight(), now);
            inFlight.addLast(now);
        }
    }
}
