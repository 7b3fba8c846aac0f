package io.ferry.cli.transfer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AbandonedPartialsTest {

    @TempDir
    Path dir;

    @Test
    void partialFilesNotWrittenForTheAgeAreRemovedAndTheOthersCounted() throws Exception {
        Instant now = Instant.parse("2026-11-29T12:00:00Z");
        Path old = write("deep/.old.iso.ferry-part", 3000, now.minus(Duration.ofDays(9)));
        Path young = write(".young.bin.ferry-part", 1024, now.minus(Duration.ofDays(2)));
        Path stored = write("deep/old.iso", 10, now.minus(Duration.ofDays(30)));
        Path hidden = write(".notes", 10, now.minus(Duration.ofDays(30)));

        AbandonedPartials.Sweep sweep = AbandonedPartials.sweep(dir, Duration.ofDays(7), now);

        assertFalse(Files.exists(old));
        assertEquals(List.of("removed deep/.old.iso.ferry-part (2.9 KiB), a partial file not written for 9 days (--keep-partials)"), sweep.removed());
        assertTrue(Files.exists(young) && Files.exists(stored) && Files.exists(hidden), "only abandoned partial files go");
        assertEquals("1 partial file (1.0 KiB) waits for its sender to resume; removed once not written for 7 days",
                sweep.keptLine(Duration.ofDays(7)));
    }

    private Path write(String name, int size, Instant written) throws Exception {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        Files.write(p, new byte[size]);
        Files.setLastModifiedTime(p, FileTime.from(written));
        return p;
    }
}
