package io.ferry.cli.transfer;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;

/**
 * Turns a name received from the network into a path inside the receiving directory, or refuses it.
 * Accepted: a relative path of '/'-separated components. Refused, with the reason: empty names,
 * absolute paths, drive letters, backslashes, {@code .} and {@code ..} components, control characters,
 * Windows device names (CON, NUL, COM1, ...), over-long components, and anything that would resolve
 * outside the directory.
 */
public final class SafeNames {

    private static final Set<String> DEVICE_NAMES = Set.of("CON", "PRN", "AUX", "NUL",
            "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
            "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9");
    private static final int MAX_COMPONENT = 255;

    private SafeNames() {
    }

    /**
     * Resolves {@code name} inside {@code directory}.
     *
     * @throws UnsafeNameException naming the problem
     */
    public static Path resolve(Path directory, String name) {
        if (name.isEmpty()) {
            throw new UnsafeNameException("empty file name");
        }
        if (name.startsWith("/") || name.startsWith("\\")) {
            throw new UnsafeNameException("absolute path '" + printable(name) + "'");
        }
        if (name.length() >= 2 && name.charAt(1) == ':') {
            throw new UnsafeNameException("drive-letter path '" + printable(name) + "'");
        }
        if (name.indexOf('\\') >= 0) {
            throw new UnsafeNameException("backslash in '" + printable(name) + "' (use '/' between directories)");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw new UnsafeNameException("control character in '" + printable(name) + "'");
            }
        }
        Path base = directory.toAbsolutePath().normalize();
        Path target = base;
        for (String component : name.split("/", -1)) {
            if (component.isEmpty() || component.equals(".") || component.equals("..")) {
                throw new UnsafeNameException("path component '" + component + "' in '" + printable(name) + "'");
            }
            if (component.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_COMPONENT) {
                throw new UnsafeNameException("path component longer than " + MAX_COMPONENT + " bytes in '" + printable(name) + "'");
            }
            String stem = component.contains(".") ? component.substring(0, component.indexOf('.')) : component;
            if (DEVICE_NAMES.contains(stem.toUpperCase(Locale.ROOT).trim())) {
                throw new UnsafeNameException("device name '" + component + "'");
            }
            if (component.endsWith(" ") || component.endsWith(".")) {
                throw new UnsafeNameException("component ending in a space or dot: '" + component + "'");
            }
            target = target.resolve(component);
        }
        target = target.normalize();
        if (!target.startsWith(base) || target.equals(base)) {
            throw new UnsafeNameException("'" + printable(name) + "' resolves outside the receiving directory");
        }
        return target;
    }

    private static String printable(String name) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < name.length() && s.length() < 200; i++) {
            char c = name.charAt(i);
            s.append(c < 0x20 || c == 0x7f ? String.format("\\x%02x", (int) c) : String.valueOf(c));
        }
        return s.toString();
    }

    /** A received name that cannot be stored safely. */
    public static final class UnsafeNameException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        UnsafeNameException(String message) {
            super("refused file name: " + message);
        }
    }
}
