package io.ferry.transport.ledbat.endpoint;

/**
 * At most so many RESETs per second from one socket: a forger who sprays packets for unknown connections
 * gets a bounded number of answers, never an amplifier. A bucket refilled once a second; time is passed in.
 */
final class ResetLimiter {

    private static final long SECOND = 1_000_000_000L;

    private volatile int rate;
    private int tokens = -1;
    private long refilledAt;
    private volatile long suppressed;

    ResetLimiter(int rate) {
        this.rate = rate;
    }

    void rate(int perSecond) {
        this.rate = perSecond;
    }

    /** Takes one RESET's place in the current second; false (and counted) when the second's RESETs are spent. */
    boolean tryAcquire(long nowNanos) {
        if (tokens < 0 || nowNanos - refilledAt >= SECOND) {
            tokens = rate;
            refilledAt = nowNanos;
        }
        if (tokens == 0) {
            suppressed++;
            return false;
        }
        tokens--;
        return true;
    }

    /** RESETs not sent because the second's were spent. */
    long suppressed() {
        return suppressed;
    }
}
