package io.ferry.transport.udt.proto.core;

import java.util.Arrays;

/**
 * The receiver's estimates that a full ACK carries (draft-gg-udt-03 section 6.2; UDT4's
 * {@code CPktTimeWindow}): the packet arrival rate, from the last 16 gaps between data packets, and
 * the link capacity, from the last 16 gaps inside packet pairs (the sender sends every packet whose
 * sequence number is a multiple of 16 back to back with the next). Both are median-filtered: gaps
 * more than 8 times from the median are outliers.
 */
final class ArrivalRates {
    private static final int WINDOW = 16;
    private final long[] gaps = new long[WINDOW];
    private final long[] probeGaps = new long[WINDOW];
    private int gapCount;
    private int gapHead;
    private int probeCount;
    private int probeHead;
    private long lastArrivalNanos = -1;
    private long probeStartNanos = -1;
    private final long[] scratch = new long[WINDOW];

    /** Records a data packet's arrival; {@code wireSeq} decides whether it opens or closes a pair. */
    void onData(int wireSeq, long nowNanos) {
        if (lastArrivalNanos >= 0) {
            gaps[gapHead] = nowNanos - lastArrivalNanos;
            gapHead = (gapHead + 1) % WINDOW;
            gapCount = Math.min(WINDOW, gapCount + 1);
        }
        lastArrivalNanos = nowNanos;
        int phase = wireSeq & 0xF;
        if (phase == 0) {
            probeStartNanos = nowNanos;
        } else if (phase == 1 && probeStartNanos >= 0) {
            probeGaps[probeHead] = Math.max(1, nowNanos - probeStartNanos);
            probeHead = (probeHead + 1) % WINDOW;
            probeCount = Math.min(WINDOW, probeCount + 1);
            probeStartNanos = -1;
        } else {
            probeStartNanos = -1;
        }
    }

    /** Packets per second arriving, or 0 before enough samples. */
    int packetsPerSecond() {
        return gapCount < WINDOW ? 0 : filteredRate(gaps, gapCount, WINDOW / 2);
    }

    /** Estimated link capacity in packets per second, or 0 before any pair arrived. */
    int capacityPacketsPerSecond() {
        return probeCount == 0 ? 0 : filteredRate(probeGaps, probeCount, 1);
    }

    private int filteredRate(long[] values, int n, int minKept) {
        System.arraycopy(values, 0, scratch, 0, n);
        Arrays.sort(scratch, 0, n);
        long median = Math.max(1, scratch[n / 2]);
        long sum = 0;
        int kept = 0;
        for (int i = 0; i < n; i++) {
            long v = values[i];
            if (v < median * 8 && v > median / 8) {
                sum += v;
                kept++;
            }
        }
        if (kept < minKept || sum <= 0) {
            return 0;
        }
        double rate = 1e9 * kept / sum;
        return rate >= Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) Math.ceil(rate);
    }
}
