package io.ferry.transport.ledbat.sim;

import io.netty.buffer.ByteBuf;

import java.util.Random;
import java.util.function.Consumer;

/**
 * One direction of a simulated path: random loss, a drop-tail queue drained at the bottleneck rate,
 * a fixed delay plus jitter, and random duplication. Takes ownership of every packet it is given and
 * releases it after delivery (the receiver only borrows it).
 */
public final class Link {
    private final EventQueue events;
    private final Random random;
    private final Consumer<ByteBuf> receiver;
    private LinkParams params;
    private long busyUntil;
    private long extraDelayNanos;
    private long pausedUntil;
    private Consumer<ByteBuf> observer;

    private long packetsOffered;
    private long packetsDropped;
    private long bytesDelivered;
    private long maxQueueNanos;
    private long queueNanosSum;
    private long queueSamples;

    public Link(EventQueue events, Random random, LinkParams params, Consumer<ByteBuf> receiver) {
        this.events = events;
        this.random = random;
        this.params = params;
        this.receiver = receiver;
    }

    public void setParams(LinkParams params) {
        this.params = params;
    }

    /** Adds a delay on top of the link's own, e.g. to emulate a competing queue. */
    public void setExtraDelay(long nanos) {
        this.extraDelayNanos = nanos;
    }

    /**
     * Stops the link for {@code nanos} from now, as a relay or emulator whose thread is descheduled does:
     * a bottleneck sends nothing meanwhile (its queue grows and drains afterwards at its rate), and a
     * link without one delivers nothing sent meanwhile before the pause ends.
     */
    public void pause(long nanos) {
        long now = events.now();
        if (params.rateBytesPerSec() > 0) {
            busyUntil = Math.max(busyUntil, now) + nanos;
        }
        pausedUntil = Math.max(pausedUntil, now + nanos);
    }

    /** Sees every packet offered to the link, before loss. */
    public void setObserver(Consumer<ByteBuf> observer) {
        this.observer = observer;
    }

    public void send(ByteBuf packet) {
        packetsOffered++;
        if (observer != null) {
            observer.accept(packet);
        }
        if (params.lossRate() > 0 && random.nextDouble() < params.lossRate()) {
            packetsDropped++;
            packet.release();
            return;
        }
        long now = events.now();
        long departure = now;
        if (params.rateBytesPerSec() > 0) {
            long start = Math.max(now, busyUntil);
            long backlogBytes = (start - now) * params.rateBytesPerSec() / 1_000_000_000L;
            if (backlogBytes + packet.readableBytes() > params.queueLimitBytes()) {
                packetsDropped++;
                packet.release();
                return;
            }
            long queueNanos = start - now;
            maxQueueNanos = Math.max(maxQueueNanos, queueNanos);
            queueNanosSum += queueNanos;
            queueSamples++;
            busyUntil = start + packet.readableBytes() * 1_000_000_000L / params.rateBytesPerSec();
            departure = busyUntil;
        }
        long jitter = params.jitterNanos() > 0 ? (long) (random.nextDouble() * params.jitterNanos()) : 0;
        long arrival = Math.max(departure, pausedUntil) + params.delayNanos() + extraDelayNanos + jitter;
        boolean duplicate = params.duplicateRate() > 0 && random.nextDouble() < params.duplicateRate();
        if (duplicate) {
            ByteBuf copy = packet.copy();
            long later = arrival + (long) (random.nextDouble() * Math.max(params.delayNanos(), 1_000_000L));
            events.schedule(later, () -> deliver(copy));
        }
        events.schedule(arrival, () -> deliver(packet));
    }

    /**
     * Puts {@code bytes} of another flow's packet through the same bottleneck queue and delay (no
     * random loss, jitter or duplication): {@code onArrival} runs when it reaches the far end. Returns
     * false, running nothing, when the queue is full and the packet is dropped.
     */
    public boolean offerCrossTraffic(int bytes, Runnable onArrival) {
        long now = events.now();
        long departure = now;
        if (params.rateBytesPerSec() > 0) {
            long start = Math.max(now, busyUntil);
            long backlogBytes = (start - now) * params.rateBytesPerSec() / 1_000_000_000L;
            if (backlogBytes + bytes > params.queueLimitBytes()) {
                return false;
            }
            busyUntil = start + bytes * 1_000_000_000L / params.rateBytesPerSec();
            departure = busyUntil;
        }
        events.schedule(departure + params.delayNanos() + extraDelayNanos, onArrival);
        return true;
    }

    /** The time a packet offered now would wait before the bottleneck starts sending it. */
    public long currentQueueNanos() {
        return Math.max(0, busyUntil - events.now());
    }

    private void deliver(ByteBuf packet) {
        try {
            bytesDelivered += packet.readableBytes();
            receiver.accept(packet);
        } finally {
            packet.release();
        }
    }

    public long packetsOffered() {
        return packetsOffered;
    }

    public long packetsDropped() {
        return packetsDropped;
    }

    public long bytesDelivered() {
        return bytesDelivered;
    }

    public long maxQueueNanos() {
        return maxQueueNanos;
    }

    /** Average queuing delay seen by packets entering the bottleneck since the last reset. */
    public long averageQueueNanos() {
        return queueSamples == 0 ? 0 : queueNanosSum / queueSamples;
    }

    public void resetQueueStats() {
        maxQueueNanos = 0;
        queueNanosSum = 0;
        queueSamples = 0;
    }
}
