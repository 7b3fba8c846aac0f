package io.ferry.transport.tcp;

import io.ferry.transport.UnsupportedOptionException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** The TCP congestion-control algorithms the running Linux kernel offers, read from {@code /proc}. */
public final class CongestionControlAlgorithms {

    static final Path AVAILABLE = Path.of("/proc/sys/net/ipv4/tcp_available_congestion_control");
    static final Path ALLOWED = Path.of("/proc/sys/net/ipv4/tcp_allowed_congestion_control");

    private CongestionControlAlgorithms() {
    }

    /** Algorithms compiled into or loaded by the kernel (empty where {@code /proc} does not tell). */
    public static List<String> available() {
        return read(AVAILABLE);
    }

    /** Algorithms an unprivileged process may choose (root may choose any available one). */
    public static List<String> allowed() {
        return read(ALLOWED);
    }

    /**
     * Checks that the kernel has an algorithm.
     *
     * @throws UnsupportedOptionException naming the algorithm and listing the available ones
     */
    static void requireAvailable(String algorithm) {
        List<String> available = available();
        if (available.isEmpty()) {
            throw new UnsupportedOptionException("cannot choose TCP congestion control '" + algorithm
                    + "': this system does not list its algorithms in " + AVAILABLE);
        }
        if (!available.contains(algorithm)) {
            throw new UnsupportedOptionException("TCP congestion control '" + algorithm + "' is not available in this kernel; available: "
                    + String.join(", ", available) + " (from " + AVAILABLE + ")");
        }
    }

    private static List<String> read(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
            return text.isEmpty() ? List.of() : Arrays.stream(text.split("\\s+")).collect(Collectors.toUnmodifiableList());
        } catch (IOException | SecurityException e) {
            return List.of();
        }
    }
}
