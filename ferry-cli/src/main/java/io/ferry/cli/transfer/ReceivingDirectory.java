package io.ferry.cli.transfer;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The directory a session stores into, and the subdirectories it has already made and checked. A file's
 * parent is created and proven to lie inside the directory (no symbolic link leads out of it) once per
 * session, not once per file: for a tree of small files those checks (a {@code mkdir} that fails with an
 * exception, a stat, and two {@code realpath} walks of every component) cost more than writing the file.
 * A sender makes a link only where nothing is ({@link ReceivedTree#link}), never in place of a directory,
 * so a parent checked earlier in the session stays inside. Used from the disk threads.
 */
final class ReceivingDirectory {

    private final Path directory;
    private volatile Path real;
    private volatile java.nio.file.FileStore store;
    /** Files smaller than this are not checked for room: a full disk still stops them, and a tree of small files pays nothing. */
    static final long ROOM_CHECK_MIN = 1 << 20;
    private final Set<Path> checked = ConcurrentHashMap.newKeySet();

    ReceivingDirectory(Path directory) {
        this.directory = directory;
    }

    Path path() {
        return directory;
    }

    /**
     * Refuses a file that cannot fit: {@code size}, less what its {@code partial} file holds, must fit in the
     * space the receiving directory's file system has free (its store looked up once per session, then a
     * statvfs per offer of a mebibyte or more). Files in flight together may still fill it; a full disk then
     * ends the session with its partial files kept. Before, a 50 MiB offer into a 20 MiB tmpfs filled it.
     */
    void checkRoomFor(String name, long size, Path partial) throws IOException {
        if (size < ROOM_CHECK_MIN) {
            return;
        }
        java.nio.file.FileStore s = store;
        if (s == null) {
            s = Files.getFileStore(directory);
            store = s;
        }
        long free = s.getUsableSpace();
        if (size <= free) {
            return;
        }
        long held = Files.isRegularFile(partial, java.nio.file.LinkOption.NOFOLLOW_LINKS) ? Files.size(partial) : 0;
        if (size - held > free) {
            throw new IncomingFile.RefusedException(name + " (" + io.ferry.cli.progress.Sizes.bytes(size) + ") does not fit: the receiving disk has "
                    + io.ferry.cli.progress.Sizes.bytes(free) + " free" + (held > 0 ? " besides the " + io.ferry.cli.progress.Sizes.bytes(held) + " already here" : ""));
        }
    }

    /**
     * Makes {@code parent} (and what is missing above it) unless this session did already, and checks that
     * it resolves inside the directory.
     *
     * @param name the file's name as sent, for the message
     * @throws IncomingFile.RefusedException if a file is in the way or a link leads outside
     */
    void ensureParent(Path parent, String name) throws IOException {
        if (checked.contains(parent)) {
            return;
        }
        if (!Files.isDirectory(parent)) {
            try {
                Files.createDirectories(parent);
            } catch (FileAlreadyExistsException e) {
                throw new IncomingFile.RefusedException(name + ": a file is in the way of directory " + e.getFile());
            }
        }
        Path root = real;
        if (root == null) {
            root = directory.toRealPath();
            real = root;
        }
        if (!parent.toRealPath().startsWith(root)) {
            throw new IncomingFile.RefusedException(name + ": refused file name: resolves outside the receiving directory through a link");
        }
        checked.add(parent);
    }
}
