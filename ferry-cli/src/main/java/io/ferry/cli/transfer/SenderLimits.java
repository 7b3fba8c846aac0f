package io.ferry.cli.transfer;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How much one sender may store in a receiver's directory, over all its sessions for as long as the
 * receiver runs: at most {@code maxFiles} files and {@code maxBytes} bytes. A sender is its IP address.
 * A file counts with its offered size when it is accepted; offering the same name again (to resume, or to
 * replace it) counts once, with the larger size. Thread-safe: the sessions of one receiver share it.
 */
public final class SenderLimits {

    /** No limit. */
    public static final SenderLimits NONE = new SenderLimits(Long.MAX_VALUE, Integer.MAX_VALUE);

    private final long maxBytes;
    private final int maxFiles;
    private final Map<InetAddress, Map<Path, Long>> usage = new HashMap<>();

    /**
     * @throws IllegalArgumentException if a limit is not positive
     */
    public SenderLimits(long maxBytes, int maxFiles) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("the byte limit per sender must be positive, got " + maxBytes);
        }
        if (maxFiles <= 0) {
            throw new IllegalArgumentException("the file limit per sender must be positive, got " + maxFiles);
        }
        this.maxBytes = maxBytes;
        this.maxFiles = maxFiles;
    }

    /**
     * Counts {@code target} of {@code size} bytes against {@code sender}'s limits, or says why it may not.
     *
     * @return empty when the file is taken; otherwise the reason, for the sender
     */
    public synchronized Optional<String> reserve(SocketAddress sender, Path target, String name, long size) {
        if (this == NONE) {
            return Optional.empty();
        }
        InetAddress who = sender instanceof InetSocketAddress ? ((InetSocketAddress) sender).getAddress() : null;
        Map<Path, Long> files = usage.computeIfAbsent(who, k -> new HashMap<>());
        Long before = files.get(target);
        long used = files.values().stream().mapToLong(Long::longValue).sum();
        long after = used - (before == null ? 0 : before) + Math.max(size, before == null ? 0 : before);
        if (before == null && files.size() >= maxFiles) {
            return Optional.of(name + " refused: this receiver takes at most " + maxFiles + " file" + (maxFiles == 1 ? "" : "s")
                    + " from one sender, and " + files.size() + " came from this one already");
        }
        if (after > maxBytes) {
            return Optional.of(name + " (" + size + " bytes) refused: this receiver takes at most " + maxBytes
                    + " bytes from one sender, and " + used + " are taken by this one already");
        }
        files.put(target, Math.max(size, before == null ? 0 : before));
        return Optional.empty();
    }
}
