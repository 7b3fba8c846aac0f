package io.ferry.transport.ledbat.cc;

/**
 * The window of RFC 5681 with RFC 3465's byte counting, shared by the controllers that differ from
 * Reno only in how much they add per round trip and how deep they cut: slow start adds the bytes each
 * acknowledgement covers, at most {@link #ABC_LIMIT} packets per acknowledgement, while the window is
 * below {@code ssthresh}; congestion avoidance adds a given number of packets each time a window's
 * worth of bytes has been acknowledged.
 */
final class RenoWindow {
    /** RFC 3465's L: the most a single acknowledgement adds in slow start, in packets. */
    static final int ABC_LIMIT = 2;
    /** The smallest window after a reduction, in packets (RFC 5681's 2 * SMSS). */
    static final int MIN_PACKETS = 2;

    final int mss;
    double cwnd;
    double ssthresh = Double.MAX_VALUE;
    private double bytesAcked;

    RenoWindow(int mss) {
        this.mss = mss;
        this.cwnd = initialWindow(mss);
    }

    /** RFC 5681's initial window: {@code min(4 * SMSS, max(2 * SMSS, 4380))} bytes. */
    static double initialWindow(int mss) {
        return Math.min(4.0 * mss, Math.max(2.0 * mss, 4380));
    }

    boolean inSlowStart() {
        return cwnd < ssthresh;
    }

    /**
     * Grows the window for {@code acked} newly acknowledged bytes.
     *
     * @param increasePackets the packets congestion avoidance adds per window acknowledged (1 for Reno)
     */
    void grow(long acked, double increasePackets) {
        if (inSlowStart()) {
            cwnd += Math.min(acked, (long) ABC_LIMIT * mss);
            return;
        }
        bytesAcked += acked;
        if (bytesAcked >= cwnd) {
            bytesAcked -= cwnd;
            cwnd += increasePackets * mss;
        }
    }

    /** Sets {@code ssthresh} (at least {@link #MIN_PACKETS}) and the window, forgetting counted bytes. */
    void set(double newCwnd, double newSsthresh) {
        ssthresh = Math.max(newSsthresh, (double) MIN_PACKETS * mss);
        cwnd = Math.max(newCwnd, mss);
        bytesAcked = 0;
    }
}
