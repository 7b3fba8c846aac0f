package io.ferry.cli.report;

import io.ferry.cli.transfer.FileOutcome;
import io.ferry.cli.transfer.SessionResult;
import io.ferry.transport.TransportStatistics;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The machine-readable summary {@code ferry send --json} and {@code ferry demo --json} print: one JSON
 * object per session with the totals, the connection's statistics and every file. Absent values
 * (e.g. retransmissions on a transport that does not count them) are left out, never written as 0.
 *
 * <p>Written by {@link JsonText} (RFC 8259 strings and numbers); the object mapping is the few lines
 * below (records, maps, lists, strings, numbers, booleans), which is all these summaries need.
 */
public final class JsonSummary {

    /** A session's summary. Field names are the JSON keys. */
    public record Session(String uri, String transport, String implementation, boolean ok, String error, int files,
                          long bytes, long transferred, double seconds, double bytesPerSecond, Connection connection,
                          Integer streams, List<Connection> perStream, List<File> perFile) {

        /** This summary with the number of streams that carried it and each one's statistics. */
        public Session withStreams(int count, List<Connection> each) {
            return new Session(uri, transport, implementation, ok, error, files, bytes, transferred, seconds, bytesPerSecond,
                    connection, count, each.isEmpty() ? null : each, perFile);
        }
    }

    /** The connection's statistics at the end of the session. */
    public record Connection(Long bytesSent, Long bytesReceived, Double rttMillis, Double rttVarianceMillis,
                             Long congestionWindowBytes, Long retransmissions, Long packetsLost, Double queuingDelayMillis) {
    }

    /** One file. */
    public record File(String name, long bytes, long transferred, long resumedFrom, String status, String checksum, String digest,
                       double seconds, String message) {
    }

    /**
     * Each record class's components, looked up once: {@code getRecordComponents()} builds them anew on every
     * call, which for the 4,096 files of a tree was half of the 40 ms this summary took.
     */
    private static final ClassValue<RecordComponent[]> COMPONENTS = new ClassValue<>() {
        @Override
        protected RecordComponent[] computeValue(Class<?> type) {
            return type.getRecordComponents();
        }
    };

    private JsonSummary() {
    }

    /** The summary of a sending session to {@code uri}. */
    public static Session of(String uri, String transport, SessionResult result) {
        List<File> files = result.files().stream().map(JsonSummary::file).toList();
        Connection connection = result.statistics().map(JsonSummary::connection).orElse(null);
        return new Session(uri, transport, result.statistics().map(TransportStatistics::implementation).orElse(null), result.ok(),
                result.failure().orElse(null), files.size(), result.totalSize(), result.transferred(),
                result.elapsed().toNanos() / 1e9, result.bytesPerSecond(), connection, null, null, files);
    }

    /**
     * The summary of a send that failed before any session (a token file, the listing, the connection):
     * {@code ok} false and the {@code error}, with the files and bytes it would have sent where they are known.
     */
    public static Session failure(String uri, String transport, String error, int files, long bytes) {
        return new Session(uri, transport, null, false, error, files, bytes, 0, 0, 0, null, null, null, null);
    }

    /** The statistics of each connection of a striped channel (empty for any other channel). */
    public static List<Connection> perStream(io.netty.channel.Channel channel) {
        if (!(channel instanceof io.ferry.transport.striped.StripedChannel)) {
            return List.of();
        }
        return ((io.ferry.transport.striped.StripedChannel) channel).memberStatistics().stream().map(JsonSummary::connection).toList();
    }

    private static File file(FileOutcome f) {
        return new File(f.name(), f.size(), f.transferred(), f.resumedFrom(), f.status().name().toLowerCase(java.util.Locale.ROOT),
                f.checksum().label(), f.digestHex().isEmpty() ? null : f.digestHex(), f.elapsed().toNanos() / 1e9, f.ok() ? null : f.message());
    }

    static Connection connection(TransportStatistics s) {
        return new Connection(s.bytesSent(), s.bytesReceived(), millis(s.smoothedRtt()), millis(s.rttVariance()),
                boxed(s.congestionWindowBytes()), boxed(s.retransmissions()), boxed(s.packetsLost()), millis(s.queuingDelay()));
    }

    private static Double millis(Optional<java.time.Duration> d) {
        return d.map(x -> x.toNanos() / 1e6).orElse(null);
    }

    private static Long boxed(java.util.OptionalLong v) {
        return v.isPresent() ? v.getAsLong() : null;
    }

    /**
     * Writes a summary as one line of JSON: a record as an object of its components (null ones left
     * out), a map as an object (null values left out), a list as an array, and strings, numbers and
     * booleans as themselves.
     *
     * @throws IllegalArgumentException for a value of any other type
     */
    public static String write(Object summary) {
        StringBuilder out = new StringBuilder(256);
        value(out, summary);
        return out.toString();
    }

    private static void value(StringBuilder out, Object v) {
        if (v == null) {
            out.append("null");
        } else if (v instanceof String) {
            JsonText.string(out, (String) v);
        } else if (v instanceof Boolean) {
            out.append(((Boolean) v).booleanValue());
        } else if (v instanceof Integer || v instanceof Long) {
            out.append(((Number) v).longValue());
        } else if (v instanceof Double || v instanceof Float) {
            JsonText.number(out, ((Number) v).doubleValue());
        } else if (v instanceof Record) {
            char separator = '{';
            for (RecordComponent c : COMPONENTS.get(v.getClass())) {
                separator = field(out, separator, c.getName(), component(v, c));
            }
            close(out, separator, '}');
        } else if (v instanceof Map) {
            char separator = '{';
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                separator = field(out, separator, String.valueOf(e.getKey()), e.getValue());
            }
            close(out, separator, '}');
        } else if (v instanceof List) {
            char separator = '[';
            for (Object item : (List<?>) v) {
                out.append(separator);
                separator = ',';
                value(out, item);
            }
            close(out, separator, ']');
        } else {
            throw new IllegalArgumentException("no JSON form for a " + v.getClass().getName());
        }
    }

    /** Writes {@code "name":value} unless the value is null; returns the separator for the next field. */
    private static char field(StringBuilder out, char separator, String name, Object v) {
        if (v == null) {
            return separator;
        }
        out.append(separator);
        JsonText.string(out, name);
        out.append(':');
        value(out, v);
        return ',';
    }

    /** Closes an object or array; one that got no member still needs its opening bracket. */
    private static void close(StringBuilder out, char separator, char closing) {
        if (separator != ',') {
            out.append(separator);
        }
        out.append(closing);
    }

    private static Object component(Object record, RecordComponent c) {
        try {
            return c.getAccessor().invoke(record);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + c.getName() + " of " + record.getClass().getSimpleName(), e);
        }
    }
}
