package io.ferry.transport.ledbat.sim;

/**
 * One direction of a simulated path.
 *
 * @param delayNanos      fixed one-way propagation delay
 * @param jitterNanos     extra uniform random delay in [0, jitter); reorders packets
 * @param lossRate        probability that a packet is dropped, 0..1
 * @param duplicateRate   probability that a packet is delivered twice
 * @param rateBytesPerSec bottleneck rate; 0 means unlimited
 * @param queueLimitBytes drop-tail queue in front of the bottleneck
 */
public record LinkParams(long delayNanos, long jitterNanos, double lossRate, double duplicateRate,
                         long rateBytesPerSec, long queueLimitBytes) {

    public static LinkParams delay(long delayNanos) {
        return new LinkParams(delayNanos, 0, 0, 0, 0, 0);
    }

    public LinkParams withLoss(double rate) {
        return new LinkParams(delayNanos, jitterNanos, rate, duplicateRate, rateBytesPerSec, queueLimitBytes);
    }

    public LinkParams withJitter(long nanos) {
        return new LinkParams(delayNanos, nanos, lossRate, duplicateRate, rateBytesPerSec, queueLimitBytes);
    }

    public LinkParams withDuplicates(double rate) {
        return new LinkParams(delayNanos, jitterNanos, lossRate, rate, rateBytesPerSec, queueLimitBytes);
    }

    public LinkParams withBottleneck(long bytesPerSec, long queueBytes) {
        return new LinkParams(delayNanos, jitterNanos, lossRate, duplicateRate, bytesPerSec, queueBytes);
    }
}
