package io.ferry.cli.transfer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SendPlanTest {

    @TempDir
    Path tmp;

    private Path file(String name, int size) throws IOException {
        Path p = tmp.resolve(name);
        Files.createDirectories(p.getParent());
        return Files.write(p, new byte[size]);
    }

    @Test
    void aDirectoryListsItsFilesDirectoriesAndInsideLinksAndNamesWhatItLeavesOut() throws Exception {
        Path b = file("tree/b.bin", 7);
        Files.setPosixFilePermissions(b, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-x---"));
        Files.setLastModifiedTime(b, java.nio.file.attribute.FileTime.fromMillis(1_700_000_000_000L));
        Path nested = file("tree/a/z/deep.bin", 70_000);
        Path a = file("tree/a.bin", 0);
        Path outside = file("outside/secret.bin", 3);
        Files.createSymbolicLink(tmp.resolve("tree/link-to-file"), outside);
        Files.createSymbolicLink(tmp.resolve("tree/link-to-dir"), outside.getParent());
        Files.createSymbolicLink(tmp.resolve("tree/up"), Path.of("../outside/secret.bin"));
        Files.createSymbolicLink(tmp.resolve("tree/a/inside"), Path.of("z/deep.bin"));
        Files.createDirectories(tmp.resolve("tree/empty-dir"));

        SendPlan plan = SendPlan.of(List.of(tmp.resolve("tree")));

        // in Path order, which compares the whole path: "a.bin" before "a/z" ('.' sorts before '/')
        assertEquals(List.of(a + " tree/a.bin 0", nested + " tree/a/z/deep.bin 70000", b + " tree/b.bin 7"),
                plan.entries().stream().map(e -> e.source() + " " + e.name() + " " + e.size()).toList(), "sorted by path, links not followed");
        assertEquals(70_007, plan.totalBytes());
        SendPlan.Entry kept = plan.entries().get(2);
        assertEquals(new FileAttributes(0750, 1_700_000_000_000L), kept.attributes(), "permission bits and time, as rsync -a keeps them");
        assertEquals(List.of("DIRECTORY tree", "DIRECTORY tree/a", "LINK tree/a/inside -> z/deep.bin", "DIRECTORY tree/a/z",
                        "DIRECTORY tree/empty-dir"),
                plan.tree().stream().map(t -> t.kind() + " " + t.name() + (t.target().isEmpty() ? "" : " -> " + t.target())).toList(),
                "every directory, empty ones too, and the link that stays inside");
        assertEquals(3, plan.skipped().size(), plan.skipped().toString());
        assertTrue(plan.skipped().stream().anyMatch(l -> l.startsWith("tree/up -> ../outside/secret.bin: a link out of the tree sent")),
                plan.skipped().toString());
        assertTrue(plan.skipped().stream().anyMatch(l -> l.startsWith("tree/link-to-dir -> " + outside.getParent() + ": an absolute link")),
                plan.skipped().toString());
        assertEquals(FileAttributes.NONE, plan.withoutAttributes().entries().get(2).attributes(), "--no-preserve");
    }

    @Test
    void twoArgumentsThatWouldStoreTheSameNameAreRefusedNamingBoth() throws Exception {
        file("one/tree/x.bin", 1);
        file("two/tree/x.bin", 2);
        SendPlan.PlanException e = assertThrows(SendPlan.PlanException.class,
                () -> SendPlan.of(List.of(tmp.resolve("one/tree"), tmp.resolve("two/tree"))));
        assertTrue(e.getMessage().contains("one/tree/x.bin") && e.getMessage().contains("two/tree/x.bin")
                && e.getMessage().endsWith("would both be stored as tree/x.bin"), e.getMessage());
    }

    @Test
    void aMissingPathIsNamed() {
        SendPlan.PlanException e = assertThrows(SendPlan.PlanException.class, () -> SendPlan.of(List.of(tmp.resolve("nope"))));
        assertEquals(tmp.resolve("nope") + ": no such file or directory", e.getMessage());
    }
}
