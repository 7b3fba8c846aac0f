package io.ferry.cli.transfer;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The directories and symbolic links a sender's trees hold (protocol 7's ENTRY frames), made in the
 * receiving directory; the directories' permission bits and times set once the session's files are all
 * stored ({@link #finish}), deepest first, as {@code rsync -a} leaves a tree. A link is made only where
 * nothing is (or the same link is), with a relative target that stays inside the receiving directory,
 * read lexically and, where the target exists, through the links it passes. Used from one disk queue.
 */
final class ReceivedTree {

    private final ReceivingDirectory directory;
    private final List<Map.Entry<Path, FileAttributes>> directories = new ArrayList<>();

    ReceivedTree(ReceivingDirectory directory) {
        this.directory = directory;
    }

    /** Makes directory {@code name} (and its parents) at {@code target}; its attributes wait for {@link #finish}. */
    void directory(String name, Path target, FileAttributes attributes) throws IOException {
        if (Files.isSymbolicLink(target)) {
            throw new IncomingFile.RefusedException(name + ": a symbolic link is in the way of the directory");
        }
        try {
            directory.ensureParent(target, name);
        } catch (FileAlreadyExistsException e) {
            throw new IncomingFile.RefusedException(name + ": a file is in the way of the directory");
        }
        if (!Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
            throw new IncomingFile.RefusedException(name + ": a file is in the way of the directory");
        }
        directories.add(Map.entry(target, attributes));
    }

    /**
     * Makes symbolic link {@code name} at {@code link}, pointing to {@code target} ('/'-separated, relative).
     * Taken only where nothing can lead out of the receiving directory: the target is some {@code ..} first
     * and then names only ({@code a/../b} and {@code ./a} are refused), it stays inside read lexically, and
     * the link's own directory is reached through no link, so that its {@code ..} is the lexical one. Every
     * link taken so resolves inside, and so does any path through links taken so.
     */
    void link(String name, Path link, String target, FileAttributes attributes) throws IOException {
        String refused = targetProblem(target);
        if (refused != null) {
            throw new IncomingFile.RefusedException(name + " -> " + target + ": refused link target (" + refused + ")");
        }
        Path root = directory.path().toAbsolutePath().normalize();
        Path parent = link.getParent();
        if (!parent.resolve(target).normalize().startsWith(root)) {
            throw new IncomingFile.RefusedException(name + " -> " + target + ": refused link out of the receiving directory");
        }
        directory.ensureParent(parent, name);
        if (!parent.toRealPath().equals(root.toRealPath().resolve(root.relativize(parent)))) {
            throw new IncomingFile.RefusedException(name + ": refused link: its directory is reached through another link");
        }
        Path wanted = Path.of(target);
        if (Files.isSymbolicLink(link)) {
            if (!Files.readSymbolicLink(link).equals(wanted)) {
                throw new IncomingFile.RefusedException(name + ": a symbolic link to " + Files.readSymbolicLink(link) + " is here already");
            }
        } else if (Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
            throw new IncomingFile.RefusedException(name + ": a file or directory is in the way of the link");
        } else {
            Files.createSymbolicLink(link, wanted);
        }
        attributes.applyTo(link, true);
    }

    /** Why a link target is not taken, or null: relative, {@code ..} only in front, no empty or {@code .} component. */
    static String targetProblem(String target) {
        if (target.isEmpty() || target.startsWith("/") || target.indexOf('\0') >= 0) {
            return "only relative links inside the tree";
        }
        boolean names = false;
        for (String component : target.split("/", -1)) {
            if (component.equals("..")) {
                if (names) {
                    return "'..' after a name";
                }
            } else if (component.isEmpty() || component.equals(".")) {
                return "an empty or '.' component";
            } else {
                names = true;
            }
        }
        return null;
    }

    /**
     * Sets the directories' attributes, deepest first.
     *
     * @return what could not be set, one line each
     */
    List<String> finish() {
        List<String> failures = new ArrayList<>();
        directories.sort(Comparator.comparingInt((Map.Entry<Path, FileAttributes> e) -> e.getKey().getNameCount()).reversed());
        for (Map.Entry<Path, FileAttributes> d : directories) {
            try {
                d.getValue().applyTo(d.getKey(), false);
            } catch (IOException e) {
                failures.add("cannot set the mode or time of " + directory.path().relativize(d.getKey()) + ": " + Failures.reason(e));
            }
        }
        directories.clear();
        return failures;
    }
}
