package io.ferry.bench.emulator;

import java.time.Duration;
import java.util.Locale;

/**
 * What one direction of an emulated link does to each packet, in this order: random loss, a drop-tail
 * queue of {@code queueBytes} drained at {@code rateBitsPerSecond}, then a fixed one-way delay.
 *
 * <p>A rate of 0 means unlimited (no queue, no serialization time). Rate and queue count the bytes the
 * emulator handles: whole IP packets for {@link TunEmulator}, UDP payloads for {@link UdpRelay}. Loss
 * decisions come from a {@link java.util.SplittableRandom} seeded with {@code seed}, so a run is
 * repeatable for the same packet sequence.
 *
 * @param lossRate          probability in [0, 1) that a packet is dropped before the queue
 * @param rateBitsPerSecond bottleneck rate, 0 for unlimited
 * @param queueBytes        drop-tail queue size in bytes (the packet being serialized counts); ignored when unlimited
 * @param oneWayDelay       fixed propagation delay added after the queue
 * @param seed              seed of the loss decisions
 */
public record LinkModel(double lossRate, long rateBitsPerSecond, long queueBytes, Duration oneWayDelay, long seed) {

    /** A link that changes nothing: no loss, unlimited rate, no delay. */
    public static final LinkModel PERFECT = new LinkModel(0, 0, 0, Duration.ZERO, 1);

    public LinkModel {
        if (!(lossRate >= 0 && lossRate < 1)) {
            throw new IllegalArgumentException("lossRate must be in [0, 1), got " + lossRate);
        }
        if (rateBitsPerSecond < 0) {
            throw new IllegalArgumentException("rateBitsPerSecond must be 0 (unlimited) or positive, got " + rateBitsPerSecond);
        }
        if (rateBitsPerSecond > 0 && queueBytes < 1_500) {
            throw new IllegalArgumentException("a rate-limited link needs a queue of at least one 1500-byte packet, got " + queueBytes);
        }
        if (oneWayDelay == null || oneWayDelay.isNegative()) {
            throw new IllegalArgumentException("oneWayDelay must be zero or positive, got " + oneWayDelay);
        }
    }

    /** A link with only a one-way delay. */
    public static LinkModel delay(Duration oneWayDelay) {
        return new LinkModel(0, 0, 0, oneWayDelay, 1);
    }

    /** This link with another loss rate. */
    public LinkModel withLoss(double rate) {
        return new LinkModel(rate, rateBitsPerSecond, queueBytes, oneWayDelay, seed);
    }

    /** This link with a rate limit and a drop-tail queue. */
    public LinkModel withRate(long bitsPerSecond, long queue) {
        return new LinkModel(lossRate, bitsPerSecond, queue, oneWayDelay, seed);
    }

    /** This link with another one-way delay. */
    public LinkModel withDelay(Duration delay) {
        return new LinkModel(lossRate, rateBitsPerSecond, queueBytes, delay, seed);
    }

    /** This link with another seed. */
    public LinkModel withSeed(long newSeed) {
        return new LinkModel(lossRate, rateBitsPerSecond, queueBytes, oneWayDelay, newSeed);
    }

    /** The queue size that holds {@code duration} of traffic at this link's rate. */
    public static long queueFor(long bitsPerSecond, Duration duration) {
        return Math.max(1_500, (long) (bitsPerSecond / 8.0 * duration.toNanos() / 1e9));
    }

    /** Whether the link has a rate limit. */
    public boolean limited() {
        return rateBitsPerSecond > 0;
    }

    /** A short human description, e.g. {@code 100 Mbit/s, queue 1875 kB, delay 10 ms, loss 0%}. */
    public String describe() {
        String rate = limited() ? String.format(Locale.ROOT, "%s, queue %d kB", bits(rateBitsPerSecond), queueBytes / 1000) : "unlimited";
        return String.format(Locale.ROOT, "%s, delay %s ms, loss %s%%", rate,
                trim(oneWayDelay.toNanos() / 1e6), trim(lossRate * 100));
    }

    private static String bits(long bps) {
        return bps >= 1_000_000_000 && bps % 1_000_000_000 == 0 ? bps / 1_000_000_000 + " Gbit/s"
                : bps >= 1_000_000 ? trim(bps / 1e6) + " Mbit/s" : trim(bps / 1e3) + " kbit/s";
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
