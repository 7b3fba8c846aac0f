package io.ferry.transport.ledbat.cc;

/**
 * The queuing-delay estimate shared by the LEDBAT controllers: the base one-way delay over ten
 * one-minute buckets ({@link BaseDelayHistory}), the current delay as the minimum of the last four
 * samples ({@link CurrentDelayFilter}), and {@code queuing = current - base}, clamped to the latest
 * round-trip sample (a one-way delay cannot exceed the round trip; this bounds the error a drifting
 * peer clock can cause).
 */
final class OneWayDelay {
    private final BaseDelayHistory base = new BaseDelayHistory();
    private final CurrentDelayFilter current = new CurrentDelayFilter();
    private long latestRttMicros = -1;

    /** Adds a raw 32-bit one-way delay sample taken at {@code nowNanos}. */
    void addSample(int delayMicros32, long nowNanos) {
        base.add(delayMicros32, nowNanos);
        current.add(delayMicros32);
    }

    /** Notes a round-trip sample, the bound of the queuing delay. */
    void addRtt(long rttMicros) {
        if (rttMicros > 0) {
            latestRttMicros = rttMicros;
        }
    }

    /** Whether any one-way sample arrived yet. */
    boolean isEmpty() {
        return current.isEmpty();
    }

    /** The queuing-delay estimate in microseconds, or {@code -1} before the first sample. */
    long queuingMicros() {
        if (current.isEmpty()) {
            return -1;
        }
        long queuing = Math.max(0, current.value() - base.base());
        return latestRttMicros > 0 ? Math.min(queuing, latestRttMicros) : queuing;
    }

    /** The base one-way delay (raw, including the clock offset) in microseconds, or {@code -1}. */
    long baseMicros() {
        return base.isEmpty() ? -1 : Integer.toUnsignedLong(base.base());
    }
}
