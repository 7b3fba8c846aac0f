package io.ferry.bench.emulator;

/**
 * The link emulator for kernel traffic: owns two TUN devices (usually one in each of two network
 * namespaces) and moves IP packets between them through one {@link LinkDirection} per direction, so
 * every TCP and UDP flow between the two sides shares the same emulated bottleneck.
 *
 * <p>Runs two threads (one per direction). Closing stops them and closes both devices.
 */
public final class TunEmulator implements AutoCloseable {

    private final TunDevice a;
    private final TunDevice b;
    private final LinkDirection aToB;
    private final LinkDirection bToA;
    private final TunForwarder forward;
    private final TunForwarder backward;
    private final Thread forwardThread;
    private final Thread backwardThread;
    private boolean closed;

    /**
     * Starts emulating between two devices.
     *
     * @param a    the first side's device (the client side, by convention)
     * @param b    the second side's device
     * @param aToB what the link does to packets from {@code a} to {@code b}
     * @param bToA what the link does to packets from {@code b} to {@code a}
     */
    public TunEmulator(TunDevice a, TunDevice b, LinkModel aToB, LinkModel bToA) {
        this.a = a;
        this.b = b;
        this.aToB = new LinkDirection(aToB);
        this.bToA = new LinkDirection(bToA);
        this.forward = new TunForwarder(a, b, this.aToB);
        this.backward = new TunForwarder(b, a, this.bToA);
        this.forwardThread = new Thread(forward, "tun-emulator-" + a.name() + ">" + b.name());
        this.backwardThread = new Thread(backward, "tun-emulator-" + b.name() + ">" + a.name());
        forwardThread.setDaemon(true);
        backwardThread.setDaemon(true);
        forwardThread.start();
        backwardThread.start();
    }

    /** The direction from the first device to the second. */
    public LinkDirection forward() {
        return aToB;
    }

    /** The direction from the second device to the first. */
    public LinkDirection backward() {
        return bToA;
    }

    /**
     * CPU time both forwarding threads have used so far, nanoseconds (−1 where the JVM cannot tell):
     * what the emulator itself costs the machine, to be read beside the transfers it carries.
     */
    public long cpuNanos() {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long a = threads.getThreadCpuTime(forwardThread.getId());
        long b = threads.getThreadCpuTime(backwardThread.getId());
        return a < 0 || b < 0 ? -1 : a + b;
    }

    /** Throws if a forwarding thread died. */
    public void checkHealthy() {
        for (TunForwarder f : new TunForwarder[] {forward, backward}) {
            if (f.failure() != null) {
                throw new IllegalStateException("the TUN emulator stopped: " + f.failure(), f.failure());
            }
        }
    }

    /** Stops both directions and closes both devices. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        forward.stop();
        backward.stop();
        try {
            forwardThread.join(2_000);
            backwardThread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            a.close();
            b.close();
        }
    }
}
