package io.ferry.cli.progress;

import org.junit.jupiter.api.Test;

import java.util.Locale;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SizesTest {

    @Test
    void writesTheSameDigitsAsTheFormatter() {
        double[] edges = {0, 0.04, 0.05, 0.05000001, 0.15, 0.25, 0.35, 0.45, 0.95, 0.96, 1.05, 2.25, 9.95, 99.95, 1023.95, 1023.94,
                59.94, 59.96, 123456789.05, 1e14 + 0.05};
        for (double d : edges) {
            assertEquals(String.format(Locale.ROOT, "%.1f", d), Sizes.oneDecimal(d), "one decimal of " + d);
            assertEquals(String.format(Locale.ROOT, "%.0f", d), Sizes.whole(d), "whole of " + d);
        }
        SplittableRandom random = new SplittableRandom(16);
        for (int i = 0; i < 20_000; i++) {
            double d = switch (i % 4) {
                case 0 -> random.nextDouble(0, 2048);
                case 1 -> Math.round(random.nextDouble(0, 20_000)) / 20.0; // ties of both roundings
                case 2 -> random.nextDouble(0, 2e9); // beyond where whole() leaves Math.round
                default -> Math.nextAfter(Math.round(random.nextDouble(0, 2e7)) / 20.0, random.nextBoolean() ? 0 : 1e10); // beside ties
            };
            assertEquals(String.format(Locale.ROOT, "%.1f", d), Sizes.oneDecimal(d), "one decimal of " + d);
            assertEquals(String.format(Locale.ROOT, "%.0f", d), Sizes.whole(d), "whole of " + d);
        }
    }

    @Test
    void bytesRatesAndSeconds() {
        assertEquals("0 B", Sizes.bytes(0));
        assertEquals("1023 B", Sizes.bytes(1023));
        assertEquals("1.0 KiB", Sizes.bytes(1024));
        assertEquals("1.5 GiB", Sizes.bytes(1.5 * (1 << 30)));
        assertEquals("64.0 KiB/s", Sizes.rate(65536));
        assertEquals("2.3s", Sizes.seconds(2.25));
        assertEquals("59.9s", Sizes.seconds(59.94));
        assertEquals("1m05s", Sizes.seconds(65.2));
        assertEquals("2h03m04s", Sizes.seconds(7384));
        assertEquals("NaNs", Sizes.seconds(Double.NaN));
    }
}
