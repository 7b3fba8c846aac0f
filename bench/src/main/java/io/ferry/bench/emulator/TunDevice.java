package io.ferry.bench.emulator;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A Linux TUN device ({@code IFF_TUN | IFF_NO_PI}): reads and writes whole IP packets. The device is
 * created in the network namespace of the thread that calls {@link #create(String)} and disappears
 * when the descriptor is closed. Needs root (or {@code CAP_NET_ADMIN}).
 *
 * <p>The descriptor is non-blocking; {@link #read} waits with {@code ppoll}. One thread may read while
 * another writes; {@link #close()} must only be called once no thread uses the device any more.
 */
public final class TunDevice implements AutoCloseable {

    private static final long TUNSETIFF = 0x400454caL;
    private static final short IFF_TUN = 0x0001;
    private static final short IFF_NO_PI = 0x1000;
    private static final int IFNAMSIZ = 16;

    private final int fd;
    private final String name;
    private final Memory pollfd = new Memory(8);
    private final Memory timespec = new Memory(16);
    private volatile boolean closed;

    private TunDevice(int fd, String name) {
        this.fd = fd;
        this.name = name;
    }

    /**
     * Creates a TUN device named {@code name} in the calling thread's network namespace.
     *
     * @throws IOException if {@code /dev/net/tun} cannot be opened or the device cannot be created
     */
    public static TunDevice create(String name) throws IOException {
        byte[] nameBytes = name.getBytes(StandardCharsets.US_ASCII);
        if (nameBytes.length == 0 || nameBytes.length >= IFNAMSIZ) {
            throw new IllegalArgumentException("interface name must have 1 to 15 characters: '" + name + "'");
        }
        LibC.requireLoaded();
        int fd;
        try {
            fd = LibC.open("/dev/net/tun", LibC.O_RDWR | LibC.O_NONBLOCK | LibC.O_CLOEXEC);
        } catch (LastErrorException e) {
            throw new IOException("cannot open /dev/net/tun (errno " + e.getErrorCode() + "; needs root or CAP_NET_ADMIN)", e);
        }
        Memory ifreq = new Memory(40);
        ifreq.clear();
        ifreq.write(0, nameBytes, 0, nameBytes.length);
        ifreq.setShort(IFNAMSIZ, (short) (IFF_TUN | IFF_NO_PI));
        try {
            LibC.ioctl(fd, TUNSETIFF, ifreq);
        } catch (LastErrorException e) {
            LibC.close(fd);
            throw new IOException("ioctl(TUNSETIFF, " + name + ") failed with errno " + e.getErrorCode(), e);
        }
        return new TunDevice(fd, ifreq.getString(0, "US-ASCII"));
    }

    /** The interface name. */
    public String name() {
        return name;
    }

    /**
     * Reads one packet into {@code buffer} (a direct buffer, from position 0), waiting at most
     * {@code timeoutNanos}.
     *
     * @return the packet length, or 0 if none arrived in time
     */
    public int read(ByteBuffer buffer, long timeoutNanos) throws IOException {
        int n = readNow(buffer);
        if (n > 0 || timeoutNanos <= 0) {
            return n;
        }
        if (!LibC.pollReadable(fd, timeoutNanos, pollfd, timespec)) {
            return 0;
        }
        return readNow(buffer);
    }

    /** Reads one packet if one is waiting, else returns 0 at once. */
    public int readNow(ByteBuffer buffer) throws IOException {
        try {
            return (int) LibC.read(fd, buffer, buffer.capacity());
        } catch (LastErrorException e) {
            if (e.getErrorCode() == LibC.EAGAIN || e.getErrorCode() == LibC.EINTR) {
                return 0;
            }
            throw new IOException("read from " + name + " failed with errno " + e.getErrorCode(), e);
        }
    }

    /** Writes one IP packet: the first {@code length} bytes of {@code buffer} (a direct buffer). */
    public void write(ByteBuffer buffer, int length) throws IOException {
        try {
            LibC.write(fd, buffer, length);
        } catch (LastErrorException e) {
            throw new IOException("write to " + name + " failed with errno " + e.getErrorCode(), e);
        }
    }

    /** Closes the descriptor, which removes the device. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            LibC.close(fd);
        }
    }
}
