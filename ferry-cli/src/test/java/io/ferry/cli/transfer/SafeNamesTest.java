package io.ferry.cli.transfer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SafeNamesTest {

    private final Path dir = Path.of("/srv/inbox");

    @Test
    void acceptsPlainAndNestedRelativeNames() {
        assertEquals(Path.of("/srv/inbox/report.pdf"), SafeNames.resolve(dir, "report.pdf"));
        assertEquals(Path.of("/srv/inbox/2026/q4/data.csv"), SafeNames.resolve(dir, "2026/q4/data.csv"));
        assertEquals(Path.of("/srv/inbox/.hidden"), SafeNames.resolve(dir, ".hidden"));
        assertEquals(Path.of("/srv/inbox/résumé ü.txt"), SafeNames.resolve(dir, "résumé ü.txt"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"../etc/passwd", "a/../../b", "..", ".", "a/./b", "a//b", "trailing/"})
    void refusesTraversalAndEmptyComponents(String name) {
        SafeNames.UnsafeNameException e = assertThrows(SafeNames.UnsafeNameException.class, () -> SafeNames.resolve(dir, name));
        assertTrue(e.getMessage().startsWith("refused file name: "), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/etc/passwd", "\\\\server\\share", "C:\\Windows\\x", "c:evil", "a\\b"})
    void refusesAbsoluteDriveAndBackslashNames(String name) {
        assertThrows(SafeNames.UnsafeNameException.class, () -> SafeNames.resolve(dir, name));
    }

    @ParameterizedTest
    @ValueSource(strings = {"CON", "nul.txt", "dir/COM1", "lpt9.log", "aux"})
    void refusesWindowsDeviceNames(String name) {
        SafeNames.UnsafeNameException e = assertThrows(SafeNames.UnsafeNameException.class, () -> SafeNames.resolve(dir, name));
        assertTrue(e.getMessage().contains("device name"), e.getMessage());
    }

    @Test
    void refusesControlCharactersAndShowsThemEscaped() {
        SafeNames.UnsafeNameException e = assertThrows(SafeNames.UnsafeNameException.class, () -> SafeNames.resolve(dir, "bad\u0000name"));
        assertTrue(e.getMessage().contains("bad\\x00name"), e.getMessage());
    }

    @Test
    void refusesEmptyAndOverlongNames() {
        assertThrows(SafeNames.UnsafeNameException.class, () -> SafeNames.resolve(dir, ""));
        assertThrows(SafeNames.UnsafeNameException.class, () -> SafeNames.resolve(dir, "x".repeat(256)));
        assertThrows(SafeNames.UnsafeNameException.class, () -> SafeNames.resolve(dir, "name. "));
    }
}
