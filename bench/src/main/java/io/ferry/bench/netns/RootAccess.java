package io.ferry.bench.netns;

import io.ferry.bench.emulator.LibC;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether this process can build emulated topologies: it must run as root (effective uid 0), open
 * {@code /dev/net/tun}, and run {@code ip netns} from iproute2. The answer is computed once.
 */
public final class RootAccess {

    private static volatile Optional<String> missing;

    private RootAccess() {
    }

    /** Why namespaces and TUN devices cannot be used here, or empty if they can. */
    public static Optional<String> missing() {
        Optional<String> result = missing;
        if (result == null) {
            result = Optional.ofNullable(check());
            missing = result;
        }
        return result;
    }

    /** Whether namespaces and TUN devices can be used here. */
    public static boolean available() {
        return missing().isEmpty();
    }

    private static String check() {
        String libc = LibC.unavailableReason();
        if (libc != null) {
            return libc;
        }
        try {
            long euid = effectiveUid();
            if (euid != 0) {
                return "needs root for network namespaces and TUN devices (effective uid is " + euid + ")";
            }
        } catch (IOException e) {
            return "cannot read the effective uid from /proc/self/status: " + e.getMessage();
        }
        if (!Files.isReadable(Path.of("/dev/net/tun")) || !Files.isWritable(Path.of("/dev/net/tun"))) {
            return "/dev/net/tun is missing or cannot be opened for reading and writing";
        }
        try {
            Commands.run("ip", "netns", "list");
        } catch (IOException e) {
            return "'ip netns' (iproute2) does not work here: " + e.getMessage();
        }
        return null;
    }

    private static long effectiveUid() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Uid:")) {
                return Long.parseLong(line.substring(4).trim().split("\\s+")[1]);
            }
        }
        throw new IOException("no Uid line");
    }
}
