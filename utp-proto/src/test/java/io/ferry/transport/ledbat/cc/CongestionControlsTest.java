package io.ferry.transport.ledbat.cc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CongestionControlsTest {
    private final CongestionParameters params = new CongestionParameters(1000, 100_000);

    @Test
    void builtInControllersAreRegisteredByName() {
        assertTrue(CongestionControls.names().containsAll(java.util.List.of("ledbat", "ledbat-strict", "fixed-window")));
        assertEquals("ledbat", CongestionControls.create("ledbat", params).name());
        assertEquals("ledbat-strict", CongestionControls.create("ledbat-strict", params).name());
        CongestionControl fixed = CongestionControls.create("fixed-window", params);
        assertEquals(FixedWindow.DEFAULT_PACKETS * 1000L, fixed.cwndBytes());
        fixed.onTimeout(0);
        assertEquals(FixedWindow.DEFAULT_PACKETS * 1000L, fixed.cwndBytes());
        assertEquals(Long.MAX_VALUE, fixed.pacingRateBytesPerSecond(1_000_000));
    }

    @Test
    void unknownNameIsRejectedListingTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CongestionControls.create("no-such-cc", params));
        assertTrue(e.getMessage().contains("no-such-cc") && e.getMessage().contains("ledbat") && e.getMessage().contains("westwood+"), e.getMessage());
    }

    @Test
    void customControllersCanBeAddedButNamesCannotBeTakenTwice() {
        CongestionControls.register("test-fixed-3", p -> new FixedWindow(p, 3));
        assertEquals(3000, CongestionControls.create("test-fixed-3", params).cwndBytes());
        assertThrows(IllegalStateException.class, () -> CongestionControls.register("ledbat", p -> null));
        assertThrows(IllegalArgumentException.class, () -> CongestionControls.register("", p -> null));
    }

    @Test
    void parametersAreValidated() {
        assertThrows(IllegalArgumentException.class, () -> new CongestionParameters(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new CongestionParameters(1, 0));
    }
}
