package io.ferry.transport.udt.proto.core;

import java.util.Arrays;

/**
 * Entries keyed by consecutive sequence counts from a moving base: the sender's unacknowledged
 * packets and the receiver's reorder buffer. Index arithmetic only, no boxing; grows by doubling
 * up to {@code maxCapacity}.
 */
final class SeqRing<T> {
    private Object[] slots;
    private final int maxCapacity;
    private long base;

    SeqRing(long base, int initialCapacity, int maxCapacity) {
        this.base = base;
        this.maxCapacity = Integer.highestOneBit(Math.max(2, maxCapacity - 1)) << 1;
        this.slots = new Object[Math.min(this.maxCapacity, Integer.highestOneBit(Math.max(2, initialCapacity - 1)) << 1)];
    }

    /** The first sequence count held (all below it are gone). */
    long base() {
        return base;
    }

    /** Whether {@code seq} is within the largest window this ring may grow to. */
    boolean fits(long seq) {
        return seq >= base && seq - base < maxCapacity;
    }

    @SuppressWarnings("unchecked")
    T get(long seq) {
        if (seq < base || seq - base >= slots.length) {
            return null;
        }
        return (T) slots[(int) (seq & (slots.length - 1))];
    }

    /** Stores {@code value} at {@code seq}, which must {@link #fits fit}. */
    void put(long seq, T value) {
        if (!fits(seq)) {
            throw new IllegalArgumentException("sequence " + seq + " outside [" + base + ", " + (base + maxCapacity) + ")");
        }
        while (seq - base >= slots.length) {
            grow();
        }
        slots[(int) (seq & (slots.length - 1))] = value;
    }

    /** Removes and returns the entry at the base, moving the base one on. */
    @SuppressWarnings("unchecked")
    T pollBase() {
        int i = (int) (base & (slots.length - 1));
        T value = (T) slots[i];
        slots[i] = null;
        base++;
        return value;
    }

    private void grow() {
        Object[] bigger = new Object[slots.length * 2];
        for (long s = base; s < base + slots.length; s++) {
            bigger[(int) (s & (bigger.length - 1))] = slots[(int) (s & (slots.length - 1))];
        }
        slots = bigger;
    }

    /** Drops every entry, for the caller that has released them. */
    void clear() {
        Arrays.fill(slots, null);
    }
}
