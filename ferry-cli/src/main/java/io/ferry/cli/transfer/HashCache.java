package io.ferry.cli.transfer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The checksums ({@link Checksum}) of files a sender read before, so that sending the same file again does not read it twice
 * (once to hash, once to send). An entry is kept per absolute path together with the file's size, its
 * modification time (nanoseconds) and its file key (device and inode on Linux), and is used only while all
 * three still match the file ({@link #lookup}); a sender also re-reads them when the file has been sent and
 * fails the file if they changed meanwhile. The receiver verifies every file against the digest it was sent,
 * so a stale entry (a file rewritten with its old size and modification time restored) fails that file
 * rather than storing wrong content, and the sender then {@link #forget}s the entry.
 *
 * <p>A file modified less than {@link #RACY_NANOS} before it was hashed is not remembered: its
 * modification time may not change again when it is written within the same clock tick.
 *
 * <p>One text file per checksum (by default {@code $XDG_CACHE_HOME/ferry/crc32c-cache} or {@code .../sha256-cache},
 * else {@code ~/.cache/ferry/...}),
 * at most {@link #MAX_ENTRIES} lines, the least recently stored dropped first; rewritten atomically. Thread-safe.
 *
 * <p>Writing: {@link #remember} rewrites the store at most once per {@link #SAVE_INTERVAL_NANOS} (the first
 * time at once), so that a send of many files does not rewrite it once per file; {@link #flush} writes what
 * is still unwritten and is due when a send ends ({@code ferry send} calls it, {@link FileSendSession} too when
 * its session completes). {@link #forget} writes at once: a stale entry must not outlive the process.
 */
public final class HashCache {

    /** The most entries kept (a store of this many lines of 100-byte paths is about 12 MB). */
    public static final int MAX_ENTRIES = 65_536;
    /** The least time between two writes of the store by {@link #remember}. */
    public static final long SAVE_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How long before hashing a file must have been last modified for its digest to be remembered. */
    public static final long RACY_NANOS = TimeUnit.SECONDS.toNanos(2);

    /** What a file looked like: its size, modification time and file key. */
    public record Stat(long size, long modifiedNanos, String fileKey) {

        /** Reads {@code file}'s attributes, following links. */
        public static Stat of(Path file) throws IOException {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return new Stat(a.size(), a.lastModifiedTime().to(TimeUnit.NANOSECONDS), String.valueOf(a.fileKey()));
        }
    }

    private record Entry(Stat stat, byte[] sha256) {
    }

    private final Path store;
    private final Checksum checksum;
    private Map<String, Entry> entries;
    /** Whether entries changed since the store was last written. */
    private boolean dirty;
    /** When the store was last written ({@link System#nanoTime()}); none yet: {@code null}. */
    private Long savedNanos;

    /** A cache of {@code checksum} values kept in {@code store} (created on the first {@link #remember}). */
    public HashCache(Path store, Checksum checksum) {
        this.store = store;
        this.checksum = checksum;
    }

    /** The cache of {@code checksum} values in the user's cache directory. */
    public static HashCache inUserCacheDirectory(Checksum checksum) {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return new HashCache(base.resolve("ferry").resolve(checksum.label() + "-cache"), checksum);
    }

    /**
     * Reads the store on a daemon thread of its own, so that a send's first lookup does not wait for it: a
     * fresh sender can read it while it lists its files and connects (4,096 entries: 20-30 ms before the
     * JIT has compiled the parsing). A lookup that comes first waits for it, as it would have read it itself.
     */
    public void loadInBackground() {
        Thread loader = new Thread(() -> {
            synchronized (this) {
                entries();
            }
        }, "ferry-hash-cache");
        loader.setDaemon(true);
        loader.start();
    }

    /** Which checksum this cache remembers. */
    public Checksum checksum() {
        return checksum;
    }

    /** Where the entries are kept. */
    public Path store() {
        return store;
    }

    /** The remembered checksum of {@code file} if its size, modification time and file key are still {@code now}'s. */
    public synchronized Optional<byte[]> lookup(Path file, Stat now) {
        Entry e = entries().get(key(file));
        return e != null && e.stat.equals(now) ? Optional.of(e.sha256.clone()) : Optional.empty();
    }

    /**
     * Remembers {@code sha256} (a value of this cache's checksum) for {@code file}, hashed from {@code hashedFrom} (read before hashing began) and
     * still so when it ended ({@code after}); a file that changed meanwhile, or was modified within
     * {@link #RACY_NANOS} of {@code hashStartNanos} (wall clock, epoch nanoseconds), is not remembered.
     */
    public synchronized void remember(Path file, Stat hashedFrom, Stat after, long hashStartNanos, byte[] sha256) {
        if (sha256.length != checksum.length()) {
            throw new IllegalArgumentException("a " + sha256.length + "-byte value in a cache of " + checksum.label());
        }
        String key = key(file);
        if (!hashedFrom.equals(after) || hashStartNanos - hashedFrom.modifiedNanos() < RACY_NANOS
                || key.indexOf('\n') >= 0 || key.indexOf('\t') >= 0) {
            return;
        }
        Map<String, Entry> all = entries();
        all.remove(key);
        all.put(key, new Entry(hashedFrom, sha256.clone()));
        while (all.size() > MAX_ENTRIES) {
            all.remove(all.keySet().iterator().next());
        }
        dirty = true;
        if (savedNanos == null || System.nanoTime() - savedNanos >= SAVE_INTERVAL_NANOS) {
            save();
        }
    }

    /** Writes the entries remembered since the store was last written, if any. */
    public synchronized void flush() {
        if (dirty) {
            save();
        }
    }

    /** Drops what is remembered for {@code file}. */
    public synchronized void forget(Path file) {
        if (entries().remove(key(file)) != null) {
            save();
        }
    }

    private static String key(Path file) {
        return file.toAbsolutePath().normalize().toString();
    }

    private Map<String, Entry> entries() {
        if (entries == null) {
            entries = new LinkedHashMap<>();
            try {
                for (String line : Files.readAllLines(store, StandardCharsets.UTF_8)) {
                    String[] f = line.split("\t", 5);
                    if (f.length == 5 && f[0].length() == 2 * checksum.length()) {
                        try {
                            entries.put(f[4], new Entry(new Stat(Long.parseLong(f[1]), Long.parseLong(f[2]), f[3]),
                                    HexFormat.of().parseHex(f[0])));
                        } catch (IllegalArgumentException malformed) {
                            // a damaged line is skipped
                        }
                    }
                }
            } catch (IOException | RuntimeException unreadable) {
                // no cache yet, or an unreadable one: start empty
            }
        }
        return entries;
    }

    /** Writes every entry to a temporary file and moves it over the store; a cache that cannot be written is no error. */
    private void save() {
        dirty = false;
        savedNanos = System.nanoTime();
        List<String> lines = new ArrayList<>(entries.size());
        for (Map.Entry<String, Entry> e : entries.entrySet()) {
            Stat s = e.getValue().stat;
            lines.add(HexFormat.of().formatHex(e.getValue().sha256) + "\t" + s.size() + "\t" + s.modifiedNanos() + "\t"
                    + Objects.requireNonNullElse(s.fileKey(), "") + "\t" + e.getKey());
        }
        try {
            Files.createDirectories(store.getParent());
            Path tmp = Files.createTempFile(store.getParent(), "." + store.getFileName(), ".tmp");
            try {
                Files.write(tmp, lines, StandardCharsets.UTF_8);
                try {
                    Files.move(tmp, store, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, store, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException | RuntimeException unwritable) {
            // the next send hashes again
        }
    }
}
