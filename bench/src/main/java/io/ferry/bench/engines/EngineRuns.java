package io.ferry.bench.engines;

import java.util.Arrays;
import java.util.Locale;

/** The command line and the statistics the engine benchmarks share: options, sizes, median, spread. */
final class EngineRuns {

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    static double min(double[] v) {
        return Arrays.stream(v).min().orElse(Double.NaN);
    }

    static double max(double[] v) {
        return Arrays.stream(v).max().orElse(Double.NaN);
    }

    static String option(String[] args, String name, String fallback) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }

    static long parseSize(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        long unit = t.endsWith("G") ? 1L << 30 : t.endsWith("M") ? 1L << 20 : t.endsWith("K") ? 1L << 10 : 1;
        return Long.parseLong(unit == 1 ? t : t.substring(0, t.length() - 1)) * unit;
    }

    private EngineRuns() {
    }
}
