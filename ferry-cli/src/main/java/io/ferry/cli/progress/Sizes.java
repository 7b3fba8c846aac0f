package io.ferry.cli.progress;

import java.util.Locale;

/** Human-readable byte counts, rates and durations (binary units). */
public final class Sizes {
    private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB"};

    private Sizes() {
    }

    /** e.g. {@code 1.5 GiB}. */
    public static String bytes(double n) {
        int unit = 0;
        while (n >= 1024 && unit < UNITS.length - 1) {
            n /= 1024;
            unit++;
        }
        return unit == 0 ? String.format(Locale.ROOT, "%.0f B", n) : String.format(Locale.ROOT, "%.1f %s", n, UNITS[unit]);
    }

    /** e.g. {@code 112.4 MiB/s}. */
    public static String rate(double bytesPerSecond) {
        return bytes(bytesPerSecond) + "/s";
    }

    /** e.g. {@code 1m05s}, {@code 2.3s}. */
    public static String seconds(double s) {
        if (s < 60) {
            return String.format(Locale.ROOT, "%.1fs", s);
        }
        long whole = Math.round(s);
        return whole / 3600 > 0
                ? String.format(Locale.ROOT, "%dh%02dm%02ds", whole / 3600, (whole / 60) % 60, whole % 60)
                : String.format(Locale.ROOT, "%dm%02ds", whole / 60, whole % 60);
    }

    /**
     * Parses a size such as {@code 64M}, {@code 1G}, {@code 512k} or {@code 1000} (binary multiples).
     *
     * @throws IllegalArgumentException naming the bad text
     */
    public static long parse(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT).replace("IB", "").replace("B", "");
        long multiplier = 1;
        if (!t.isEmpty()) {
            char last = t.charAt(t.length() - 1);
            int shift = "KMGT".indexOf(last);
            if (shift >= 0) {
                multiplier = 1L << (10 * (shift + 1));
                t = t.substring(0, t.length() - 1);
            }
        }
        try {
            long value = Long.parseLong(t.trim());
            if (value < 0) {
                throw new NumberFormatException();
            }
            return Math.multiplyExact(value, multiplier);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is not a size; use e.g. 1000, 512K, 64M or 1G");
        }
    }
}
