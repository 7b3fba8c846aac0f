package io.ferry.bench.scenario;

import java.util.Locale;

/** Formatting of sizes and times in the reports. */
final class Units {

    private Units() {
    }

    /** Binary sizes for buffers: 16 KiB, 4 MiB. */
    static String binary(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + " GiB";
        }
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1L << 10 && bytes % (1L << 10) == 0) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }

    /** Decimal sizes for files and packets, as the studies write them: 28 KB, 2.8 MB. */
    static String decimal(long bytes) {
        if (bytes >= 1_000_000) {
            return trim(bytes / 1e6) + " MB";
        }
        if (bytes >= 1_000) {
            return trim(bytes / 1e3) + " KB";
        }
        return bytes + " B";
    }

    static String seconds(double s) {
        return s >= 100 ? String.format(Locale.ROOT, "%.0f s", s)
                : s >= 1 ? String.format(Locale.ROOT, "%.1f s", s) : String.format(Locale.ROOT, "%.3f s", s);
    }

    /** A plain number without trailing zeros: 1, 0.5, 2.25. */
    static String number(double v) {
        return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }

    static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }
}
