package io.ferry.cli.transfer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

/**
 * What a file, directory or link keeps besides its content, as {@code rsync -a} keeps it: the permission
 * bits ({@code rwxrwxrwx}, not owner or group, which another machine's users do not share) and the
 * modification time. Either may be absent ({@link #NO_MODE}, {@link #NO_TIME}): a sender on a file system
 * without them, or {@code ferry send --no-preserve}.
 *
 * @param mode         permission bits, 0 to 0777, or {@link #NO_MODE}
 * @param mtimeMillis  modification time in milliseconds since the epoch, or {@link #NO_TIME}
 */
public record FileAttributes(int mode, long mtimeMillis) {

    public static final int NO_MODE = 0xFFFF;
    public static final long NO_TIME = Long.MIN_VALUE;
    /** Keeps nothing: the receiver's defaults apply. */
    public static final FileAttributes NONE = new FileAttributes(NO_MODE, NO_TIME);

    private static final PosixFilePermission[] BITS = {
            PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
            PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ};

    /**
     * The attributes of {@code path} itself (a link's own, not its target's). A directory walk's own
     * attributes do not carry the permission bits (the JDK hands it basic attributes only), so this is
     * one more {@code lstat} per entry.
     */
    public static FileAttributes read(Path path) throws IOException {
        try {
            PosixFileAttributes posix = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return new FileAttributes(mode(posix.permissions()), posix.lastModifiedTime().toMillis());
        } catch (UnsupportedOperationException noPosix) {
            BasicFileAttributes basic = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return new FileAttributes(NO_MODE, basic.lastModifiedTime().toMillis());
        }
    }

    static int mode(Set<PosixFilePermission> permissions) {
        int mode = 0;
        for (int bit = 0; bit < BITS.length; bit++) {
            if (permissions.contains(BITS[bit])) {
                mode |= 1 << bit;
            }
        }
        return mode;
    }

    static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
        for (int bit = 0; bit < BITS.length; bit++) {
            if ((mode & (1 << bit)) != 0) {
                set.add(BITS[bit]);
            }
        }
        return set;
    }

    /**
     * Sets what is kept on {@code path}: the modification time of a link itself (its permissions mean
     * nothing on Linux), a file's or directory's permission bits and time. A file system without POSIX
     * permissions keeps the time only.
     */
    public void applyTo(Path path, boolean link) throws IOException {
        if (!link && mode != NO_MODE) {
            try {
                Files.setPosixFilePermissions(path, permissions(mode));
            } catch (UnsupportedOperationException noPosix) {
                // e.g. a FAT or SMB mount: the time still applies
            }
        }
        if (mtimeMillis != NO_TIME) {
            BasicFileAttributeView view = link
                    ? Files.getFileAttributeView(path, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    : Files.getFileAttributeView(path, BasicFileAttributeView.class);
            view.setTimes(FileTime.fromMillis(mtimeMillis), null, null);
        }
    }
}
