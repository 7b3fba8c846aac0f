package io.ferry.transport.ledbat.cc;

/**
 * The current-delay filter of RFC 6817: the minimum of the last {@link #SAMPLES} one-way delay
 * samples, which removes the noise of single late packets while still following the queue quickly.
 * Samples are compared modulo 2^32 like in {@link BaseDelayHistory}.
 */
final class CurrentDelayFilter {
    /** Number of samples the filter keeps (RFC 6817 CURRENT_FILTER). */
    static final int SAMPLES = 4;

    private final int[] samples = new int[SAMPLES];
    private int count;
    private int next;

    void add(int delay) {
        samples[next] = delay;
        next = (next + 1) % SAMPLES;
        if (count < SAMPLES) {
            count++;
        }
    }

    boolean isEmpty() {
        return count == 0;
    }

    /** Returns the minimum of the kept samples (raw 32-bit value). Undefined when empty. */
    int value() {
        int m = samples[0];
        for (int i = 1; i < count; i++) {
            m = BaseDelayHistory.min(m, samples[i]);
        }
        return m;
    }
}
