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
    void aDirectoryListsItsRegularFilesInPathOrderWithTheirSizesAndSkipsLinks() throws Exception {
        Path b = file("tree/b.bin", 7);
        Path nested = file("tree/a/z/deep.bin", 70_000);
        Path a = file("tree/a.bin", 0);
        Path outside = file("outside/secret.bin", 3);
        Files.createSymbolicLink(tmp.resolve("tree/link-to-file"), outside);
        Files.createSymbolicLink(tmp.resolve("tree/link-to-dir"), outside.getParent());
        Files.createDirectories(tmp.resolve("tree/empty-dir"));

        SendPlan plan = SendPlan.of(List.of(tmp.resolve("tree")));

        // in Path order, which compares the whole path: "a.bin" before "a/z" ('.' sorts before '/')
        assertEquals(List.of(new SendPlan.Entry(a, "tree/a.bin", 0), new SendPlan.Entry(nested, "tree/a/z/deep.bin", 70_000),
                new SendPlan.Entry(b, "tree/b.bin", 7)), plan.entries(), "sorted by path, links not followed, directories not listed");
        assertEquals(70_007, plan.totalBytes());
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
