package io.ferry.bench.report;

import java.util.Arrays;
import java.util.Collection;

/** Summary statistics used in the reports. */
public final class Stats {

    private Stats() {
    }

    /** The median, or NaN for no values. */
    public static double median(Collection<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** The smallest value, or NaN. */
    public static double min(Collection<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    /** The largest value, or NaN. */
    public static double max(Collection<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    /** Jain's fairness index (Σx)² / (n·Σx²): 1 when all shares are equal, 1/n when one flow has everything. */
    public static double jain(double... shares) {
        double sum = Arrays.stream(shares).sum();
        double squares = Arrays.stream(shares).map(x -> x * x).sum();
        return squares == 0 ? Double.NaN : sum * sum / (shares.length * squares);
    }
}
