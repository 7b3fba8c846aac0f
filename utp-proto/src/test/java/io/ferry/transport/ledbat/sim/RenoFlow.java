package io.ferry.transport.ledbat.sim;

/**
 * A loss-based competitor in the manner of TCP Reno (RFC 5681): slow start from 10 packets, one packet
 * per round trip in congestion avoidance, the window halved at most once per round trip on loss. It
 * fills a drop-tail queue until it overflows, as Reno and CUBIC do.
 */
public final class RenoFlow extends CompetingFlow {
    private double cwnd = 10;
    private double ssthresh = Double.MAX_VALUE;
    private long lastCutNanos = Long.MIN_VALUE;
    private long srttNanos;

    public RenoFlow(EventQueue events, Link link, long ackDelayNanos) {
        super(events, link, ackDelayNanos);
    }

    @Override
    protected double windowPackets() {
        return cwnd;
    }

    @Override
    protected long pacingBytesPerSecond() {
        return Long.MAX_VALUE;
    }

    @Override
    protected void onAck(long sentAt, long deliveredAtSend, long deliveredTimeAtSend) {
        long rtt = events.now() - sentAt;
        srttNanos = srttNanos == 0 ? rtt : (7 * srttNanos + rtt) / 8;
        cwnd += cwnd < ssthresh ? 1 : 1 / cwnd;
    }

    @Override
    protected void onLoss() {
        long now = events.now();
        if (lastCutNanos != Long.MIN_VALUE && now - lastCutNanos < srttNanos) {
            return;
        }
        lastCutNanos = now;
        cwnd = Math.max(2, cwnd / 2);
        ssthresh = cwnd;
    }
}
