package io.ferry.bench.emulator;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;

import java.nio.ByteBuffer;

/**
 * The few Linux C library calls the emulator needs, bound with JNA direct mapping. Only for 64-bit
 * Linux (x86-64 and aarch64): {@code size_t}, {@code ssize_t} and {@code nfds_t} are passed as Java
 * {@code long}, and {@code ioctl}'s variadic pointer argument is passed like a fixed one, which is
 * the same on those ABIs.
 */
public final class LibC {

    static final int O_RDWR = 0x2;
    static final int O_RDONLY = 0x0;
    static final int O_NONBLOCK = 0x800;
    static final int O_CLOEXEC = 0x80000;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final short POLLIN = 0x1;
    static final int CLONE_NEWNET = 0x40000000;

    private static final boolean LOADED;
    private static final String LOAD_FAILURE;

    static {
        boolean loaded = false;
        String failure = null;
        if (!Platform.isLinux() || !Platform.is64Bit()) {
            failure = "the emulator's native calls need 64-bit Linux, this is " + System.getProperty("os.name") + " " + System.getProperty("os.arch");
        } else {
            try {
                Native.register(LibC.class, Platform.C_LIBRARY_NAME);
                loaded = true;
            } catch (UnsatisfiedLinkError | RuntimeException e) {
                failure = "cannot bind the C library with JNA: " + e;
            }
        }
        LOADED = loaded;
        LOAD_FAILURE = failure;
    }

    private LibC() {
    }

    /** Why the native calls are unavailable here, or null if they are available. */
    public static String unavailableReason() {
        return LOAD_FAILURE;
    }

    static void requireLoaded() {
        if (!LOADED) {
            throw new IllegalStateException(LOAD_FAILURE);
        }
    }

    static native int open(String path, int flags) throws LastErrorException;

    static native int close(int fd) throws LastErrorException;

    static native long read(int fd, ByteBuffer buffer, long count) throws LastErrorException;

    static native long write(int fd, ByteBuffer buffer, long count) throws LastErrorException;

    static native int ioctl(int fd, long request, Pointer argument) throws LastErrorException;

    static native int ppoll(Pointer fds, long nfds, Pointer timeout, Pointer sigmask) throws LastErrorException;

    static native int setns(int fd, int nstype) throws LastErrorException;

    /** Waits until {@code fd} is readable or {@code timeoutNanos} passed; true if readable. */
    static boolean pollReadable(int fd, long timeoutNanos, Memory pollfd, Memory timespec) {
        pollfd.setInt(0, fd);
        pollfd.setShort(4, POLLIN);
        pollfd.setShort(6, (short) 0);
        long t = Math.max(0, timeoutNanos);
        timespec.setLong(0, t / 1_000_000_000L);
        timespec.setLong(8, t % 1_000_000_000L);
        try {
            return ppoll(pollfd, 1, timespec, null) > 0;
        } catch (LastErrorException e) {
            if (e.getErrorCode() == EINTR) {
                return false;
            }
            throw e;
        }
    }
}
