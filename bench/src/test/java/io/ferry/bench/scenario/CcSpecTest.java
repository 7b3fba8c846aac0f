package io.ferry.bench.scenario;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How study 5's {@code --algorithms} names become rows. */
class CcSpecTest {

    @Test
    void aBareNameSelectsTheKernelsAndFerrysAlgorithmOfThatName() {
        assertEquals(List.of(new CcSpec("tcp", "cubic"), new CcSpec("utp", "cubic")), CcSpec.select(List.of("cubic"), List.of()));
        assertEquals(List.of(new CcSpec("tcp", "reno")), CcSpec.select(List.of("reno"), List.of()));
    }

    @Test
    void aTransportAndNameIsTakenAsItIsAndRepeatsCountOnce() {
        assertEquals(List.of(new CcSpec("utp", "westwood+"), new CcSpec("tcp", "bbr"), new CcSpec("utp", "bbr")),
                CcSpec.select(List.of("utp:westwood+", "bbr", "tcp:bbr"), List.of()));
    }

    @Test
    void nothingSelectedMeansTheDefault() {
        assertEquals(CcSpec.ALL, CcSpec.select(List.of(), CcSpec.ALL));
    }

    @Test
    void anUnknownNameIsRefusedWithTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CcSpec.select(List.of("compound"), List.of()));
        assertTrue(e.getMessage().contains("westwood+"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CcSpec.parse("utp:"));
    }

    @Test
    void aControllerUtpDoesNotHaveIsReportedMissing() {
        TransportCatalog catalog = TransportCatalog.discover();
        assertTrue(new CcSpec("utp", "no-such-cc").missing(catalog).isPresent());
        assertTrue(new CcSpec("utp", "cubic").missing(catalog).isEmpty() || !catalog.installed("utp"));
    }
}
