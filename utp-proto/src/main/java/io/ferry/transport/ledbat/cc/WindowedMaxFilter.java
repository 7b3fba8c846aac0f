package io.ferry.transport.ledbat.cc;

/**
 * The largest value seen over a sliding window of "time" (any increasing counter: BBR uses round
 * trips). Keeps the candidates in decreasing order of value, one per distinct time at most, so it
 * holds at most {@code window + 1} entries and updates in amortised constant time.
 */
final class WindowedMaxFilter {
    private final long window;
    private final long[] times;
    private final double[] values;
    private int head;
    private int size;

    /** @param window how far back a value counts: values older than {@code now - window} are forgotten */
    WindowedMaxFilter(long window) {
        if (window < 1) {
            throw new IllegalArgumentException("window must be >= 1, was " + window);
        }
        this.window = window;
        int capacity = (int) Math.min(Integer.MAX_VALUE - 8, window + 2);
        this.times = new long[capacity];
        this.values = new double[capacity];
    }

    /** Adds a sample taken at {@code time} (never earlier than a previous one) and returns the maximum. */
    double update(double value, long time) {
        while (size > 0 && values[index(size - 1)] <= value) {
            size--;
        }
        if (size == 0 || times[index(size - 1)] != time) {
            int i = index(size);
            times[i] = time;
            values[i] = value;
            size++;
        }
        expire(time);
        return get();
    }

    /** Forgets what is older than the window as of {@code time}, and returns the maximum. */
    double expire(long time) {
        while (size > 1 && times[head] < time - window) {
            head = (head + 1) % times.length;
            size--;
        }
        if (size == 1 && times[head] < time - window) {
            size = 0;
        }
        return get();
    }

    /** The maximum over the window, 0 if there is none. */
    double get() {
        return size == 0 ? 0 : values[head];
    }

    private int index(int offset) {
        return (head + offset) % times.length;
    }
}
