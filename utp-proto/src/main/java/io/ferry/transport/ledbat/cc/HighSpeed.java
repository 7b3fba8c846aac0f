package io.ferry.transport.ledbat.cc;

/**
 * HighSpeed TCP (RFC 3649): Reno's window (see {@link NewReno}) whose increase per round trip
 * {@code a(w)} grows and whose decrease on loss {@code b(w)} shrinks with the window {@code w} (in
 * packets) once it is above {@link #LOW_WINDOW}, so that a single flow can fill a path of many thousand
 * packets with the loss rates such paths have, while below it behaves exactly as Reno.
 *
 * <p>From RFC 3649 section 5, with {@code Low_Window = 38}, {@code High_Window = 83000},
 * {@code High_Decrease = 0.1}:
 * <pre>
 * b(w) = (High_Decrease - 0.5) * (log w - log Low_Window) / (log High_Window - log Low_Window) + 0.5
 * p(w) = 0.078 / w^1.2                       (the response function w = 0.12 / p^0.835)
 * a(w) = w^2 * p(w) * 2 * b(w) / (2 - b(w))
 * </pre>
 * computed directly rather than looked up in the RFC's Appendix B table, which lists these values.
 * On a loss {@code cwnd = (1 - b(w)) * cwnd}, at most once per round trip; a timeout falls back to
 * RFC 5681 (half the flight, one packet). Slow start is RFC 5681's (RFC 3742's limited slow start,
 * which RFC 3649 suggests for very large windows, is not used). Pacing is the interface's default.
 */
public final class HighSpeed extends RenoFamily {
    /** RFC 3649 Low_Window: at or below it, a(w) = 1 and b(w) = 0.5, as in Reno. */
    public static final double LOW_WINDOW = 38;
    /** RFC 3649 High_Window. */
    public static final double HIGH_WINDOW = 83_000;
    /** RFC 3649 High_Decrease: b(High_Window). */
    public static final double HIGH_DECREASE = 0.1;

    /**
     * Creates a controller.
     *
     * @param parameters the connection's MSS
     */
    public HighSpeed(CongestionParameters parameters) {
        super(parameters);
    }

    /** RFC 3649's decrease factor for a window of {@code w} packets. */
    public static double decrease(double w) {
        if (w <= LOW_WINDOW) {
            return 0.5;
        }
        double fraction = (Math.log(w) - Math.log(LOW_WINDOW)) / (Math.log(HIGH_WINDOW) - Math.log(LOW_WINDOW));
        return (HIGH_DECREASE - 0.5) * fraction + 0.5;
    }

    /** RFC 3649's increase per round trip, in packets, for a window of {@code w} packets. */
    public static double increase(double w) {
        if (w <= LOW_WINDOW) {
            return 1;
        }
        double b = decrease(w);
        double p = 0.078 / Math.pow(w, 1.2);
        return Math.max(1, w * w * p * 2 * b / (2 - b));
    }

    @Override
    public String name() {
        return CongestionControls.HIGHSPEED;
    }

    @Override
    public void onAck(long bytesNewlyAcked, long bytesInFlightBeforeAck, long rttSampleNanos, long nowNanos) {
        ackedFromFlight(bytesNewlyAcked, bytesInFlightBeforeAck);
        if (mayGrow(bytesNewlyAcked, bytesInFlightBeforeAck, nowNanos)) {
            window.grow(bytesNewlyAcked, increase(window.cwnd / window.mss));
        }
    }

    @Override
    public boolean onLoss(long nowNanos, long smoothedRttNanos) {
        if (!episode.tryBegin(nowNanos, smoothedRttNanos)) {
            return false;
        }
        double reduced = (1 - decrease(window.cwnd / window.mss)) * window.cwnd;
        window.set(reduced, reduced);
        return true;
    }

    @Override
    public void onTimeout(long nowNanos) {
        window.set(window.mss, halfFlight());
        episode.timedOut(nowNanos);
    }

}
