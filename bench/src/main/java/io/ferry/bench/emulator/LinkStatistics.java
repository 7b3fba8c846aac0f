package io.ferry.bench.emulator;

/**
 * Counters of one direction of an emulated link.
 *
 * @param offered            packets that arrived at the link
 * @param lost               packets dropped by random loss
 * @param queueDrops         packets dropped because the queue was full
 * @param accepted           packets queued for delivery
 * @param bytesAccepted      bytes of the accepted packets
 * @param meanQueueDelayNanos mean time the accepted packets waited in the queue
 * @param maxQueueDelayNanos  longest time an accepted packet waited in the queue
 */
public record LinkStatistics(long offered, long lost, long queueDrops, long accepted, long bytesAccepted,
                             long meanQueueDelayNanos, long maxQueueDelayNanos) {
}
