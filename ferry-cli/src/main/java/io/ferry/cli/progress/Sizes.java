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
        return unit == 0 ? whole(n) + " B" : oneDecimal(n) + " " + UNITS[unit];
    }

    /** e.g. {@code 112.4 MiB/s}. */
    public static String rate(double bytesPerSecond) {
        return bytes(bytesPerSecond) + "/s";
    }

    /** e.g. {@code 1m05s}, {@code 2.3s}. */
    public static String seconds(double s) {
        if (!(s < 60)) {
            if (Double.isNaN(s) || Double.isInfinite(s)) {
                return s + "s";
            }
            long whole = Math.round(s);
            return whole / 3600 > 0
                    ? whole / 3600 + "h" + twoDigits((whole / 60) % 60) + "m" + twoDigits(whole % 60) + "s"
                    : whole / 60 + "m" + twoDigits(whole % 60) + "s";
        }
        return oneDecimal(s) + "s";
    }

    // These are written out rather than String.format'ed: a receiver logs a line per file, and for a tree of
    // small files the formatter (a Formatter and new DecimalFormatSymbols per call) showed in its profile.

    /** {@code n} rounded half up to one decimal, as {@code %.1f} does. */
    static String oneDecimal(double n) {
        if (!(Math.abs(n) < 1e15)) {
            return String.format(Locale.ROOT, "%.1f", n);
        }
        long tenths = nearTie(n * 10) ? new java.math.BigDecimal(Double.toString(n)).setScale(1, java.math.RoundingMode.HALF_UP)
                .unscaledValue().longValueExact() : Math.round(n * 10);
        long abs = Math.abs(tenths);
        return (tenths < 0 ? "-" : "") + abs / 10 + "." + abs % 10;
    }

    /** {@code n} rounded half up to a whole number, as {@code %.0f} does. */
    static String whole(double n) {
        if (!(Math.abs(n) < 1e15)) {
            return String.format(Locale.ROOT, "%.0f", n);
        }
        return nearTie(n) ? new java.math.BigDecimal(Double.toString(n)).setScale(0, java.math.RoundingMode.HALF_UP).toPlainString()
                : Long.toString(Math.round(n));
    }

    /**
     * Whether {@code x} may lie so close to a half that rounding its binary value and rounding its decimal text
     * (what {@code %.1f} rounds) could differ; elsewhere {@link Math#round} gives the same digits without
     * {@code Double.toString} and {@code BigDecimal}, which cost a fresh sender 30-40 ms over 4,096 report lines.
     */
    private static boolean nearTie(double x) {
        double a = Math.abs(x);
        return !(a < 1e9) || Math.abs(a - Math.floor(a) - 0.5) < 1e-4;
    }

    private static String twoDigits(long n) {
        return n < 10 ? "0" + n : Long.toString(n);
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
