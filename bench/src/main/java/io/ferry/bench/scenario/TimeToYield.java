package io.ferry.bench.scenario;

/**
 * The fairness study's time to yield: how long after a competitor started the scavenger kept more than
 * a given share of what the bottleneck delivered. Shares are judged over a sliding window of a few
 * samples, so that a competitor's own brief pause (BBR's ProbeRTT drains for 200 ms every 10 s) does
 * not count as the scavenger taking over.
 */
final class TimeToYield {

    private TimeToYield() {
    }

    /**
     * Returns the seconds from {@code from} to the end of the last window in which the scavenger's share
     * exceeded {@code limit}: 0 if it never did, NaN if the last window still did.
     *
     * @param times     each sample's end time in seconds, ascending; samples at or before {@code from} are ignored
     * @param scavenger the scavenger's delivery in each sample (any unit)
     * @param all       everything delivered in each sample, the scavenger included (same unit)
     * @param from      when the competitor started, in seconds
     * @param window    how many consecutive samples a share is judged over (at least 1)
     * @param limit     the largest share that counts as yielded, e.g. 0.10
     */
    static double seconds(double[] times, double[] scavenger, double[] all, double from, int window, double limit) {
        if (times.length != scavenger.length || times.length != all.length || window < 1) {
            throw new IllegalArgumentException("samples must line up and the window must be at least 1");
        }
        int first = 0;
        while (first < times.length && times[first] <= from) {
            first++;
        }
        double lastAbove = from;
        boolean aboveAtEnd = false;
        for (int i = first; i < times.length; i++) {
            double s = 0;
            double a = 0;
            for (int j = Math.max(first, i - window + 1); j <= i; j++) {
                s += scavenger[j];
                a += all[j];
            }
            boolean above = a > 0 && s / a > limit;
            if (above) {
                lastAbove = times[i];
            }
            aboveAtEnd = above;
        }
        return aboveAtEnd ? Double.NaN : lastAbove - from;
    }
}
