package io.ferry.examples.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.ferry.examples.transfer.FileOutcome;
import io.ferry.examples.transfer.SessionResult;
import io.ferry.transport.TransportStatistics;

import java.util.List;
import java.util.Optional;

/**
 * The machine-readable summary {@code ferry send --json} and {@code ferry demo --json} print: one JSON
 * object per session with the totals, the connection's statistics and every file. Absent values
 * (e.g. retransmissions on a transport that does not count them) are left out, never written as 0.
 */
public final class JsonSummary {

    private static final ObjectMapper JSON = new ObjectMapper()
            .setSerializationInclusion(JsonInclude.Include.NON_ABSENT)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

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
    public record File(String name, long bytes, long transferred, long resumedFrom, String status, String sha256,
                       double seconds, String message) {
    }

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

    /** The statistics of each connection of a striped channel (empty for any other channel). */
    public static List<Connection> perStream(io.netty.channel.Channel channel) {
        if (!(channel instanceof io.ferry.transport.striped.StripedChannel)) {
            return List.of();
        }
        return ((io.ferry.transport.striped.StripedChannel) channel).memberStatistics().stream().map(JsonSummary::connection).toList();
    }

    private static File file(FileOutcome f) {
        return new File(f.name(), f.size(), f.transferred(), f.resumedFrom(), f.status().name().toLowerCase(java.util.Locale.ROOT),
                f.sha256Hex().isEmpty() ? null : f.sha256Hex(), f.elapsed().toNanos() / 1e9, f.ok() ? null : f.message());
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

    /** Writes any summary object as one line of JSON. */
    public static String write(Object summary) {
        try {
            return JSON.writeValueAsString(summary);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON summary: " + e.getMessage(), e);
        }
    }
}
