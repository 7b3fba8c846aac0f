package io.ferry.transport.udt.proto.core;

/**
 * The receiver's record of the full ACKs it sent (UDT4's ACK window): ACK number, the sequence count
 * it acknowledged and when it left. An ACK2 names an ACK number; the time since that ACK left is a
 * round-trip sample (draft-gg-udt-03 section 6.2). Holds the last 1024, as UDT4 does.
 */
final class AckHistory {
    private static final int SIZE = 1024;
    private final int[] numbers = new int[SIZE];
    private final long[] acked = new long[SIZE];
    private final long[] sentNanos = new long[SIZE];
    private int head;
    private int count;

    void store(int ackNumber, long ackedSeq, long nowNanos) {
        numbers[head] = ackNumber;
        acked[head] = ackedSeq;
        sentNanos[head] = nowNanos;
        head = (head + 1) & (SIZE - 1);
        count = Math.min(SIZE, count + 1);
    }

    /**
     * Finds the ACK an ACK2 answers.
     *
     * @return its index for {@link #ackedSeq} and {@link #sentNanos}, or -1 if it is not held
     */
    int find(int ackNumber) {
        for (int i = 1; i <= count; i++) {
            int at = (head - i) & (SIZE - 1);
            if (numbers[at] == ackNumber) {
                return at;
            }
        }
        return -1;
    }

    long ackedSeq(int index) {
        return acked[index];
    }

    long sentNanos(int index) {
        return sentNanos[index];
    }
}
