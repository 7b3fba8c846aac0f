package io.ferry.bench.emulator;

import java.util.SplittableRandom;

/**
 * The state of one direction of an emulated link: decides, in virtual time, what happens to each
 * packet offered to it (see {@link LinkModel}). It holds no packets itself: it answers when a packet
 * must be delivered, and the caller keeps the packet until then. Because the delay is fixed and the
 * queue is FIFO, delivery times never decrease.
 *
 * <p>One thread offers packets; any thread may read the counters.
 */
public final class LinkDirection {

    /** {@link #offer} result: the packet was dropped by random loss. */
    public static final long LOST = -1;
    /** {@link #offer} result: the packet was dropped because the queue was full. */
    public static final long QUEUE_FULL = -2;

    private final LinkModel model;
    private final SplittableRandom random;
    private final long delayNanos;
    private final double nanosPerByte;
    private volatile long busyUntil;
    private volatile long offered;
    private volatile long lost;
    private volatile long queueDrops;
    private volatile long delivered;
    private volatile long bytesDelivered;
    private volatile long queueDelaySumNanos;
    private volatile long queueDelayMaxNanos;

    public LinkDirection(LinkModel model) {
        this.model = model;
        this.random = new SplittableRandom(model.seed());
        this.delayNanos = model.oneWayDelay().toNanos();
        this.nanosPerByte = model.limited() ? 8e9 / model.rateBitsPerSecond() : 0;
        this.busyUntil = System.nanoTime();
    }

    /** The model this direction applies. */
    public LinkModel model() {
        return model;
    }

    /**
     * Offers a packet of {@code bytes} at time {@code now} ({@link System#nanoTime()} scale).
     *
     * @return the time at which to deliver it, or {@link #LOST} or {@link #QUEUE_FULL}
     */
    public long offer(int bytes, long now) {
        offered++;
        if (model.lossRate() > 0 && random.nextDouble() < model.lossRate()) {
            lost++;
            return LOST;
        }
        long leaves = now;
        long waited = 0;
        if (model.limited()) {
            long backlogNanos = Math.max(0, busyUntil - now);
            long backlogBytes = (long) (backlogNanos / nanosPerByte);
            if (backlogBytes + bytes > model.queueBytes()) {
                queueDrops++;
                return QUEUE_FULL;
            }
            leaves = Math.max(busyUntil, now) + (long) (bytes * nanosPerByte);
            busyUntil = leaves;
            waited = backlogNanos;
        }
        delivered++;
        bytesDelivered += bytes;
        queueDelaySumNanos += waited;
        if (waited > queueDelayMaxNanos) {
            queueDelayMaxNanos = waited;
        }
        return leaves + delayNanos;
    }

    /** How long a packet arriving now would wait in the queue before being serialized. */
    public long currentQueueDelayNanos(long now) {
        return Math.max(0, busyUntil - now);
    }

    /** A snapshot of this direction's counters. */
    public LinkStatistics statistics() {
        long d = delivered;
        return new LinkStatistics(offered, lost, queueDrops, d, bytesDelivered,
                d == 0 ? 0 : queueDelaySumNanos / d, queueDelayMaxNanos);
    }
}
