package io.ferry.transport.ledbat.cc;

/**
 * TCP NewReno's congestion control: RFC 5681's slow start and congestion avoidance with RFC 3465's
 * appropriate byte counting ({@code L = 2}), and RFC 6582's recovery as far as the uTP core exposes it.
 *
 * <ul>
 *   <li>The initial window is RFC 5681's, {@code min(4 * SMSS, max(2 * SMSS, 4380 bytes))}.</li>
 *   <li>Slow start, while {@code cwnd < ssthresh}: each acknowledgement adds the bytes it covers, at
 *       most two packets.</li>
 *   <li>Congestion avoidance: one packet per window of bytes acknowledged, one packet per round trip.</li>
 *   <li>A loss sets {@code ssthresh = max(FlightSize / 2, 2 * SMSS)} and {@code cwnd = ssthresh} (the
 *       window RFC 6582 leaves when the full acknowledgement ends recovery; the core repairs the holes,
 *       with its own fast retransmit and selective acknowledgements, instead of inflating the window).
 *       Losses within a round trip of the reduction belong to the same episode and change nothing, and
 *       the window does not grow during that round trip.</li>
 *   <li>A retransmission timeout sets {@code ssthresh} the same way and {@code cwnd} to one packet;
 *       a timeout within a loss recovery, or one that repeats before anything new was acknowledged,
 *       keeps the {@code ssthresh} it found (RFC 5681 section 3.1).</li>
 *   <li>The window grows only while it is used (RFC 7661, see {@link CwndValidation}).</li>
 * </ul>
 * Pacing is the interface's default (the window over the smoothed RTT, twice that in slow start).
 */
public final class NewReno extends RenoFamily {
    private boolean timedOutSinceAck;

    /**
     * Creates a controller.
     *
     * @param parameters the connection's MSS
     */
    public NewReno(CongestionParameters parameters) {
        super(parameters);
    }

    @Override
    public String name() {
        return CongestionControls.NEWRENO;
    }

    @Override
    public void onAck(long bytesNewlyAcked, long bytesInFlightBeforeAck, long rttSampleNanos, long nowNanos) {
        ackedFromFlight(bytesNewlyAcked, bytesInFlightBeforeAck);
        if (bytesNewlyAcked > 0) {
            timedOutSinceAck = false;
        }
        if (mayGrow(bytesNewlyAcked, bytesInFlightBeforeAck, nowNanos)) {
            window.grow(bytesNewlyAcked, 1);
        }
    }

    @Override
    public boolean onLoss(long nowNanos, long smoothedRttNanos) {
        if (!episode.tryBegin(nowNanos, smoothedRttNanos)) {
            return false;
        }
        double ssthresh = halfFlight();
        window.set(ssthresh, ssthresh);
        return true;
    }

    @Override
    public void onTimeout(long nowNanos) {
        // RFC 5681 holds ssthresh on a repeated timeout, and a timeout within a recovery keeps the
        // recovery's (as Linux's tcp_enter_loss does): the flight then is what the loss already
        // halved, and halving it again had cut a 69 Mbit/s flow to 33 on the emulated link
        boolean keep = timedOutSinceAck || episode.inRecovery(nowNanos);
        window.set(window.mss, keep ? window.ssthresh : halfFlight());
        episode.timedOut(nowNanos);
        timedOutSinceAck = true;
    }

}
