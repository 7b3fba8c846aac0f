package io.ferry.transport.ledbat.endpoint;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * What a listener admits: at most so many half-open connections (accepted, but the initiator has not yet
 * proven its address), so many established ones, and so many from one IP address. Shared by the
 * {@link EndpointCore}s of one listener's sockets, so thread-safe: they run on several event loops.
 */
public final class Admission {

    /** The outcome of a SYN. */
    enum Verdict {
        /** Accept it as a half-open connection. */
        ADMIT,
        /** Too many half-open connections: drop the SYN unanswered, unless its socket can evict a half-open one of its own. */
        DROP,
        /** Too many connections, in all or from this address: refuse with a RESET (rate-limited). */
        REFUSE
    }

    private final int maxHalfOpen;
    private final int maxConnections;
    private final int maxPerAddress;
    private final AtomicInteger halfOpen = new AtomicInteger();
    private final AtomicInteger established = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong expired = new AtomicLong();
    private final AtomicLong evicted = new AtomicLong();

    public Admission(int maxHalfOpen, int maxConnections, int maxPerAddress) {
        this.maxHalfOpen = maxHalfOpen;
        this.maxConnections = maxConnections;
        this.maxPerAddress = maxPerAddress;
    }

    /**
     * Decides on a SYN from {@code address}; an {@link Verdict#ADMIT} counts it as half-open. When the
     * half-open limit is reached, {@code evictOldest} may make room by ending a half-open connection (and
     * telling this class through {@link #evicted}); it returns false when it has none to end.
     */
    Verdict admit(InetAddress address, BooleanSupplier evictOldest) {
        if (established.get() >= maxConnections) {
            refused.incrementAndGet();
            return Verdict.REFUSE;
        }
        while (!reserve(halfOpen, maxHalfOpen)) {
            if (!evictOldest.getAsBoolean()) {
                dropped.incrementAndGet();
                return Verdict.DROP;
            }
        }
        boolean[] room = {false};
        perAddress.compute(address, (a, n) -> {
            int count = n == null ? 0 : n;
            if (count >= maxPerAddress) {
                return n;
            }
            room[0] = true;
            return count + 1;
        });
        if (!room[0]) {
            halfOpen.decrementAndGet();
            refused.incrementAndGet();
            return Verdict.REFUSE;
        }
        return Verdict.ADMIT;
    }

    private static boolean reserve(AtomicInteger counter, int max) {
        for (;;) {
            int n = counter.get();
            if (n >= max) {
                return false;
            }
            if (counter.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** A half-open connection from {@code address} made room for a newer SYN: it ends unanswered, counted as evicted. */
    void evicted(InetAddress address) {
        halfOpen.decrementAndGet();
        evicted.incrementAndGet();
        perAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
    }

    /** An admitted SYN was not taken after all (handed to another socket, or its connection could not be set up). */
    void withdrawn(InetAddress address) {
        halfOpen.decrementAndGet();
        perAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
    }

    /** A half-open connection's initiator proved its address. */
    void promoted() {
        halfOpen.decrementAndGet();
        established.incrementAndGet();
    }

    /** A connection admitted from {@code address} is over; {@code wasHalfOpen} if it never was promoted. */
    void released(InetAddress address, boolean wasHalfOpen) {
        if (wasHalfOpen) {
            halfOpen.decrementAndGet();
            expired.incrementAndGet();
        } else {
            established.decrementAndGet();
        }
        perAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
    }

    public int halfOpen() {
        return halfOpen.get();
    }

    /** Whether the half-open places are all taken (a new SYN would be dropped, or answered from a SYN cache). */
    boolean halfOpenFull() {
        return halfOpen.get() >= maxHalfOpen;
    }

    public int established() {
        return established.get();
    }

    public long dropped() {
        return dropped.get();
    }

    public long refused() {
        return refused.get();
    }

    public long expired() {
        return expired.get();
    }

    /** Half-open connections ended early to admit a newer SYN while the half-open limit was reached. */
    public long evicted() {
        return evicted.get();
    }
}
