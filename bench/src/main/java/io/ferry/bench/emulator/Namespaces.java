package io.ferry.bench.emulator;

import com.sun.jna.LastErrorException;

import java.nio.file.Path;

/** Moves the calling thread into a network namespace with {@code setns(2)}. */
public final class Namespaces {

    private Namespaces() {
    }

    /**
     * Moves the calling thread (only it) into the network namespace behind {@code handle}, such as
     * {@code /run/netns/NAME}. Threads this thread starts afterwards start in that namespace too.
     *
     * @throws IllegalStateException if the handle cannot be opened or {@code setns} fails
     */
    public static void enter(Path handle) {
        LibC.requireLoaded();
        int fd;
        try {
            fd = LibC.open(handle.toString(), LibC.O_RDONLY | LibC.O_CLOEXEC);
        } catch (LastErrorException e) {
            throw new IllegalStateException("cannot open " + handle + " (errno " + e.getErrorCode() + ")", e);
        }
        try {
            LibC.setns(fd, LibC.CLONE_NEWNET);
        } catch (LastErrorException e) {
            throw new IllegalStateException("setns(" + handle + ") failed with errno " + e.getErrorCode(), e);
        } finally {
            LibC.close(fd);
        }
    }
}
