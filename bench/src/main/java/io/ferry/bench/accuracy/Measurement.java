package io.ferry.bench.accuracy;

import java.util.Locale;

/**
 * One checked quantity of the emulator: what was asked, what was measured and how far apart they may be.
 *
 * @param name       e.g. {@code RTT (UDP ping)}
 * @param unit       e.g. {@code ms}
 * @param expected   the value the link model implies
 * @param measured   the value measured with real traffic
 * @param tolerance  the allowed difference: a fraction of {@code expected} if {@code relative}, else absolute
 * @param relative   whether {@code tolerance} is relative
 */
public record Measurement(String name, String unit, double expected, double measured, double tolerance, boolean relative) {

    /** Whether the measured value is within tolerance. */
    public boolean passed() {
        return Math.abs(measured - expected) <= allowed();
    }

    /** The allowed absolute difference. */
    public double allowed() {
        return relative ? Math.abs(expected) * tolerance : tolerance;
    }

    /** The difference as a percentage of the expected value (relative checks) or in the unit (absolute checks). */
    public String deviation() {
        if (relative) {
            return String.format(Locale.ROOT, "%+.1f%% (allowed ±%.0f%%)", (measured - expected) / expected * 100, tolerance * 100);
        }
        return String.format(Locale.ROOT, "%+.2f %s (allowed ±%.2f)", measured - expected, unit, tolerance);
    }
}
