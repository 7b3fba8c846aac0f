package io.ferry.transport.ledbat.sim;

/**
 * A simulated TCP-like bulk flow that shares a {@link Link}'s bottleneck with a uTP connection, so
 * that a scavenger can be tested against a competitor in virtual time. Its packets take the link's
 * queue and delay; its acknowledgements come back after a fixed one-way delay (the reverse path is not
 * congested); a packet the full queue drops is noticed one round trip later. Subclasses decide how
 * much may be in flight and how fast packets may leave.
 */
public abstract class CompetingFlow {
    /** Bytes per packet, as a 1500-byte MTU TCP segment occupies the link. */
    public static final int PACKET = 1500;

    protected final EventQueue events;
    private final Link link;
    private final long ackDelayNanos;
    private long inFlightPackets;
    private long deliveredBytes;
    private long deliveredAtNanos;
    private long nextSendNanos;
    private boolean sendScheduled;
    private boolean running;

    protected CompetingFlow(EventQueue events, Link link, long ackDelayNanos) {
        this.events = events;
        this.link = link;
        this.ackDelayNanos = ackDelayNanos;
    }

    /** Starts sending. */
    public void start() {
        running = true;
        deliveredAtNanos = events.now();
        trySend();
    }

    /** Stops sending new packets. */
    public void stop() {
        running = false;
    }

    /** Payload bytes delivered so far. */
    public long deliveredBytes() {
        return deliveredBytes;
    }

    /** Packets sent and neither acknowledged nor noticed lost. */
    protected long inFlightPackets() {
        return inFlightPackets;
    }

    /** How many packets may be in flight now. */
    protected abstract double windowPackets();

    /** The pacing rate in bytes per second, {@link Long#MAX_VALUE} for none. */
    protected abstract long pacingBytesPerSecond();

    /**
     * A packet sent at {@code sentAt}, when {@code deliveredAtSend} bytes had been delivered (the last
     * of them at {@code deliveredTimeAtSend}), was acknowledged now.
     */
    protected abstract void onAck(long sentAt, long deliveredAtSend, long deliveredTimeAtSend);

    /** A packet was found lost. */
    protected abstract void onLoss();

    protected final void trySend() {
        while (running && inFlightPackets < Math.max(1, (long) windowPackets())) {
            long now = events.now();
            if (now < nextSendNanos) {
                if (!sendScheduled) {
                    sendScheduled = true;
                    events.schedule(nextSendNanos, () -> {
                        sendScheduled = false;
                        trySend();
                    });
                }
                return;
            }
            long pacing = pacingBytesPerSecond();
            nextSendNanos = pacing == Long.MAX_VALUE ? now : now + PACKET * 1_000_000_000L / Math.max(1, pacing);
            inFlightPackets++;
            long deliveredAtSend = deliveredBytes;
            long deliveredTimeAtSend = deliveredAtNanos;
            boolean queued = link.offerCrossTraffic(PACKET, () -> events.schedule(events.now() + ackDelayNanos, () -> {
                inFlightPackets--;
                deliveredBytes += PACKET;
                deliveredAtNanos = events.now();
                onAck(now, deliveredAtSend, deliveredTimeAtSend);
                trySend();
            }));
            if (!queued) {
                long noticed = now + 2 * ackDelayNanos + link.currentQueueNanos();
                events.schedule(noticed, () -> {
                    inFlightPackets--;
                    onLoss();
                    trySend();
                });
            }
        }
    }
}
