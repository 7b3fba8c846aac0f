package io.ferry.cli.perf;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One line of {@code ferry perf}'s control protocol (docs/cli-perf.md): a verb and {@code key=value}
 * fields, values percent-encoded so that a line never holds a space or a newline of its own, e.g.
 * {@code TEST id=3 uri=utp%3Fstreams%3D4 sender=client seconds=5}.
 */
record ControlMessage(String verb, Map<String, String> fields) {

    /** Longest line either side accepts: a message with a few thousand rate samples fits. */
    static final int MAX_LINE = 256 * 1024;

    static ControlMessage of(String verb, Object... keysAndValues) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
            if (keysAndValues[i + 1] != null) {
                fields.put(String.valueOf(keysAndValues[i]), String.valueOf(keysAndValues[i + 1]));
            }
        }
        return new ControlMessage(verb, fields);
    }

    /** Parses a line; a line that is not {@code VERB [key=value]...} is a {@link IllegalArgumentException}. */
    static ControlMessage parse(String line) {
        String[] words = line.trim().split(" ");
        if (words.length == 0 || words[0].isEmpty() || !words[0].chars().allMatch(c -> c >= 'A' && c <= 'Z' || c == '-')) {
            throw new IllegalArgumentException("not a ferry perf control line: " + abbreviate(line));
        }
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 1; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("not a key=value field: " + abbreviate(words[i]));
            }
            fields.put(words[i].substring(0, eq), URLDecoder.decode(words[i].substring(eq + 1), StandardCharsets.UTF_8));
        }
        return new ControlMessage(words[0], fields);
    }

    String line() {
        StringBuilder s = new StringBuilder(verb);
        fields.forEach((k, v) -> s.append(' ').append(k).append('=').append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
        return s.toString();
    }

    boolean is(String v) {
        return verb.equals(v);
    }

    String get(String key) {
        String v = fields.get(key);
        if (v == null) {
            throw new IllegalArgumentException(verb + " without " + key);
        }
        return v;
    }

    String get(String key, String otherwise) {
        return fields.getOrDefault(key, otherwise);
    }

    long number(String key) {
        try {
            return Long.parseLong(get(key));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(verb + ": " + key + " is not a number: " + abbreviate(get(key)));
        }
    }

    long number(String key, long otherwise) {
        return fields.containsKey(key) ? number(key) : otherwise;
    }

    /** A comma-separated list of whole numbers (empty for none). */
    long[] numbers(String key) {
        String v = get(key, "");
        if (v.isEmpty()) {
            return new long[0];
        }
        String[] parts = v.split(",");
        long[] out = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            out[i] = Long.parseLong(parts[i]);
        }
        return out;
    }

    static String joined(long[] values) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                s.append(',');
            }
            s.append(values[i]);
        }
        return s.toString();
    }

    private static String abbreviate(String s) {
        return s.length() <= 60 ? s : s.substring(0, 57) + "...";
    }
}
