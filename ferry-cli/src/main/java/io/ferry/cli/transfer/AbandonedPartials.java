package io.ferry.cli.transfer;

import io.ferry.cli.progress.Sizes;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The partial files ({@code .NAME.ferry-part}) no sender came back for. A receiving directory kept every
 * one for ever, invisible ({@code ls} hides dot files): a filled 20 MiB tmpfs stayed full with nothing to
 * see. {@code ferry receive} sweeps its directory when it starts and once a day: a partial file not written
 * for longer than {@code --keep-partials} days is removed with a line; the others are counted in one line.
 */
public final class AbandonedPartials {

    /** What a sweep did: one line per file removed, and what it left for a resume. */
    public record Sweep(List<String> removed, int kept, long keptBytes) {
        /** One line on what was left, or null when nothing was. */
        public String keptLine(Duration maxAge) {
            return kept == 0 ? null : kept + (kept == 1 ? " partial file (" : " partial files (") + Sizes.bytes(keptBytes)
                    + (kept == 1 ? ") waits for its sender" : ") wait for their senders") + " to resume; removed once not written for "
                    + days(maxAge);
        }
    }

    private AbandonedPartials() {
    }

    /** Removes the partial files under {@code directory} last written before {@code now - maxAge}. */
    public static Sweep sweep(Path directory, Duration maxAge, Instant now) throws IOException {
        List<String> removed = new ArrayList<>();
        int[] kept = {0};
        long[] keptBytes = {0};
        Instant before = now.minus(maxAge);
        Files.walkFileTree(directory, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                String name = file.getFileName().toString();
                if (!attributes.isRegularFile() || !name.startsWith(".") || !name.endsWith(".ferry-part")) {
                    return FileVisitResult.CONTINUE;
                }
                Instant written = attributes.lastModifiedTime().toInstant();
                if (written.isBefore(before)) {
                    Files.deleteIfExists(file);
                    removed.add("removed " + directory.relativize(file) + " (" + Sizes.bytes(attributes.size()) + "), a partial file "
                            + "not written for " + days(Duration.between(written, now)) + " (--keep-partials)");
                } else {
                    kept[0]++;
                    keptBytes[0] += attributes.size();
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                return FileVisitResult.CONTINUE; // an unreadable corner is not this sweep's business
            }
        });
        return new Sweep(removed, kept[0], keptBytes[0]);
    }

    static String days(Duration d) {
        double days = d.toMinutes() / (24.0 * 60);
        return days >= 1 ? String.format(java.util.Locale.ROOT, "%.0f days", Math.floor(days))
                : String.format(java.util.Locale.ROOT, "%.1f hours", d.toMinutes() / 60.0);
    }
}
