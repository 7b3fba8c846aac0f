package io.ferry.transport.ledbat.channel;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a listener admits: at most so many half-open connections (accepted, but the initiator has not yet
 * proven its address), so many established ones, and so many from one IP address. Thread-safe: the
 * listener's sockets run on several event loops.
 */
final class Admission {

    /** The outcome of a SYN. */
    enum Verdict {
        /** Accept it as a half-open connection. */
        ADMIT,
        /** Too many half-open connections: drop the SYN unanswered (a flood of spoofed SYNs gets nothing). */
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

    Admission(int maxHalfOpen, int maxConnections, int maxPerAddress) {
        this.maxHalfOpen = maxHalfOpen;
        this.maxConnections = maxConnections;
        this.maxPerAddress = maxPerAddress;
    }

    /** Decides on a SYN from {@code address}; an {@link Verdict#ADMIT} counts it as half-open. */
    Verdict admit(InetAddress address) {
        if (established.get() >= maxConnections) {
            refused.incrementAndGet();
            return Verdict.REFUSE;
        }
        if (!reserve(halfOpen, maxHalfOpen)) {
            dropped.incrementAndGet();
            return Verdict.DROP;
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

    int halfOpen() {
        return halfOpen.get();
    }

    int established() {
        return established.get();
    }

    long dropped() {
        return dropped.get();
    }

    long refused() {
        return refused.get();
    }

    long expired() {
        return expired.get();
    }
}
