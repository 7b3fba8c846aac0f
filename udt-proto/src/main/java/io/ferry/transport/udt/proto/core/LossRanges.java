package io.ferry.transport.udt.proto.core;

import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * A sorted set of lost sequence counts kept as disjoint ranges: the sender's loss list (what to
 * resend first) and the receiver's (what to report in NAKs). Each range remembers when it was last
 * reported and how often, for the receiver's periodic NAK (draft-gg-udt-03 section 6.2: a loss is
 * reported again once k RTTs have passed, k growing by one per report).
 */
final class LossRanges {
    /** One range, {@code [first, last]}. */
    static final class Range {
        long last;
        long reportedNanos;
        int reports;

        Range(long last, long reportedNanos, int reports) {
            this.last = last;
            this.reportedNanos = reportedNanos;
            this.reports = reports;
        }
    }

    private final TreeMap<Long, Range> ranges = new TreeMap<>();
    private long size;

    boolean isEmpty() {
        return ranges.isEmpty();
    }

    /** The number of sequence counts held. */
    long size() {
        return size;
    }

    /** The lowest count held; the set must not be empty. */
    long first() {
        return ranges.firstKey();
    }

    /** Adds {@code [first, last]}, merging with what it touches. Returns the counts newly added. */
    long add(long first, long last, long nowNanos) {
        if (last < first) {
            return 0;
        }
        // remove every overlapping or adjacent range, then insert the union
        long removed = 0;
        long newFirst = first;
        long newLast = last;
        Map.Entry<Long, Range> e = ranges.floorEntry(newFirst);
        if (e != null && e.getValue().last >= newFirst - 1) {
            newFirst = e.getKey();
        }
        for (Iterator<Map.Entry<Long, Range>> it = ranges.tailMap(newFirst, true).entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, Range> x = it.next();
            if (x.getKey() > newLast + 1) {
                break;
            }
            newLast = Math.max(newLast, x.getValue().last);
            removed += x.getValue().last - x.getKey() + 1;
            it.remove();
        }
        ranges.put(newFirst, new Range(newLast, nowNanos, 0));
        long total = newLast - newFirst + 1;
        size += total - removed;
        return total - removed;
    }

    /** Removes one count; returns whether it was held. */
    boolean remove(long seq) {
        Map.Entry<Long, Range> e = ranges.floorEntry(seq);
        if (e == null || e.getValue().last < seq) {
            return false;
        }
        long first = e.getKey();
        Range r = e.getValue();
        ranges.remove(first);
        if (first < seq) {
            ranges.put(first, new Range(seq - 1, r.reportedNanos, r.reports));
        }
        if (seq < r.last) {
            ranges.put(seq + 1, new Range(r.last, r.reportedNanos, r.reports));
        }
        size--;
        return true;
    }

    /** Removes every count below {@code seq}. */
    void removeBelow(long seq) {
        while (!ranges.isEmpty()) {
            Map.Entry<Long, Range> e = ranges.firstEntry();
            if (e.getKey() >= seq) {
                return;
            }
            Range r = e.getValue();
            ranges.remove(e.getKey());
            if (r.last >= seq) {
                ranges.put(seq, new Range(r.last, r.reportedNanos, r.reports));
                size -= seq - e.getKey();
                return;
            }
            size -= r.last - e.getKey() + 1;
        }
    }

    /** Removes every count in {@code [first, last]}. */
    void removeRange(long first, long last) {
        if (last < first) {
            return;
        }
        Map.Entry<Long, Range> f = ranges.floorEntry(first);
        long from = f != null && f.getValue().last >= first ? f.getKey() : first;
        for (Iterator<Map.Entry<Long, Range>> it = ranges.tailMap(from, true).entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, Range> x = it.next();
            long a = x.getKey();
            Range r = x.getValue();
            if (a > last) {
                break;
            }
            it.remove();
            size -= r.last - a + 1;
            if (a < first) {
                ranges.put(a, new Range(first - 1, r.reportedNanos, r.reports));
                size += first - a;
            }
            if (r.last > last) {
                ranges.put(last + 1, new Range(r.last, r.reportedNanos, r.reports));
                size += r.last - last;
                break;
            }
            it = ranges.tailMap(a, false).entrySet().iterator();
        }
    }

    /** Removes and returns the lowest count; the set must not be empty. */
    long pollFirst() {
        long first = ranges.firstKey();
        remove(first);
        return first;
    }

    /** The ranges in order, for reports; entries may be updated, not removed. */
    Iterable<Map.Entry<Long, Range>> entries() {
        return ranges.entrySet();
    }
}
