package io.ferry.transport.ledbat.core;

/**
 * The memory charge of payloads delivered to the application and not yet reported consumed, in
 * delivery order. The application reports consumption in bytes, in the order it was given the data
 * ({@link UtpConnection#consumed}); each delivered buffer's charge is released as its bytes are
 * consumed, a partly consumed buffer's in proportion. Two rings of ints, grown on demand: nothing is
 * allocated per packet.
 */
final class UnconsumedCharges {
    private int[] lengths = new int[16];
    private int[] charges = new int[16];
    private int head;
    private int size;
    private long totalCharge;
    private long totalBytes;

    /** A buffer of {@code length} payload bytes holding {@code charge} bytes of memory was delivered. */
    void add(int length, int charge) {
        if (size == lengths.length) {
            grow();
        }
        int i = (head + size) & (lengths.length - 1);
        lengths[i] = length;
        charges[i] = charge;
        size++;
        totalCharge += charge;
        totalBytes += length;
    }

    /** The application consumed {@code bytes} more of what was delivered, oldest first. */
    void consume(long bytes) {
        while (bytes > 0 && size > 0) {
            int len = lengths[head];
            if (bytes >= len) {
                bytes -= len;
                totalBytes -= len;
                totalCharge -= charges[head];
                head = (head + 1) & (lengths.length - 1);
                size--;
            } else {
                // part of the oldest buffer: release its charge in proportion, keep the rest charged
                int released = (int) ((long) charges[head] * bytes / len);
                lengths[head] = len - (int) bytes;
                charges[head] -= released;
                totalBytes -= bytes;
                totalCharge -= released;
                bytes = 0;
            }
        }
    }

    /** Memory charged for what the application still holds. */
    long charge() {
        return totalCharge;
    }

    /** Payload bytes the application still holds. */
    long bytes() {
        return totalBytes;
    }

    /** Forgets everything delivered (the connection discards further data). */
    void clear() {
        head = 0;
        size = 0;
        totalCharge = 0;
        totalBytes = 0;
    }

    private void grow() {
        int[] l = new int[lengths.length * 2];
        int[] c = new int[charges.length * 2];
        for (int k = 0; k < size; k++) {
            int i = (head + k) & (lengths.length - 1);
            l[k] = lengths[i];
            c[k] = charges[i];
        }
        lengths = l;
        charges = c;
        head = 0;
    }
}
