package io.ferry.transport.ledbat.sim;

import io.ferry.transport.ledbat.cc.CongestionControl;
import io.ferry.transport.ledbat.core.UtpConfig;

import java.time.Duration;

/**
 * One bulk uTP transfer with a chosen congestion controller over a simulated path: a bottleneck of
 * {@code rate} bytes per second with a drop-tail queue in the forward direction, a fixed one-way delay
 * each way, and optionally random loss both ways. For tests of one controller's behaviour on a path;
 * {@link #close()} ends the connection and checks that every buffer was released.
 */
public final class Bottleneck implements AutoCloseable {
    public static final long MS = 1_000_000L;
    public static final long SECOND = 1_000 * MS;

    public final SimPair pair;
    public final long rate;
    public final long oneWayNanos;
    /** The connection's packet size (header included), in bytes. */
    public final int packetSize;
    private final TrackingAllocator alloc = new TrackingAllocator();

    /**
     * Starts sending {@code bytes} (all zero) from client to server.
     *
     * @param queueBytes the bottleneck's queue, in bytes
     * @param loss       random loss each way, 0..1
     */
    public Bottleneck(long seed, String controller, long rate, long oneWayNanos, long queueBytes, double loss, int bytes) {
        this.rate = rate;
        this.oneWayNanos = oneWayNanos;
        UtpConfig config = UtpConfig.builder().allocator(alloc).congestionControl(controller)
                .sendBufferSize(16 << 20).receiveBufferSize(16 << 20).targetDelay(Duration.ofMillis(100)).build();
        this.packetSize = config.packetSize();
        LinkParams forward = LinkParams.delay(oneWayNanos).withBottleneck(rate, queueBytes).withLoss(loss);
        LinkParams back = LinkParams.delay(oneWayNanos).withLoss(loss);
        pair = new SimPair(seed, forward, back, config, config);
        pair.client.sendAll(new byte[bytes], true);
        pair.server.sendAll(new byte[0], true);
        pair.connect();
    }

    /** The sender's congestion controller (after the handshake). */
    @SuppressWarnings("unchecked")
    public <T extends CongestionControl> T controller() {
        return (T) pair.client.connection().congestionControl();
    }

    public void runFor(long nanos) {
        pair.events.runFor(nanos);
    }

    /** Runs until the receiver has everything and both ends have shut down their output; false if not within the time. */
    public boolean runToEnd(long maxNanos) {
        return pair.run(pair.server::isEndOfStream, maxNanos);
    }

    /** The bottleneck's queue now, in packets of {@link #packetSize}. */
    public double queuedPackets() {
        return pair.clientToServer.currentQueueNanos() * (double) rate / 1e9 / packetSize;
    }

    /** The path's round trip without queueing. */
    public long baseRttNanos() {
        return 2 * oneWayNanos;
    }

    @Override
    public void close() {
        pair.abortAndDrain();
        if (alloc.unreleased() != 0) {
            throw new AssertionError(alloc.unreleased() + " buffers not released");
        }
    }
}
