package io.ferry.cli.perf;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Everything one {@code ferry perf} run measured, and the verdict it reads from it: which transport moves
 * bulk fastest each way, whether the scavenger yields, and which option mattered.
 *
 * @param host            the server as typed
 * @param port            its control port
 * @param idleRttMillis   the control connection's round trip before any test (median of ten)
 * @param bulk            every bulk test, in the order run
 * @param fairness        the scavenger's tests, or null
 * @param fairnessSkipped why they were not run, or null
 * @param seconds         the whole run's length
 */
public record PerfReport(String host, int port, double idleRttMillis, List<BulkResult> bulk, FairnessResult fairness,
                         String fairnessSkipped, double seconds) {

    /** A scavenger has yielded while its share stays at or below this (the bench's {@code YIELDED_SHARE}). */
    static final double YIELDED_SHARE = 0.10;
    /** TCP beside the scavenger keeps at least this much of its rate alone for "no harm". */
    static final double HARMLESS = 0.9;
    /** A striped spec counts as helping when it beats its single-stream spec by this factor. */
    static final double STRIPING_HELPS = 1.2;
    /** Transports within this fraction of the fastest are named beside it: the difference is within a test's noise. */
    static final double NEAR = 0.05;

    /** The fastest test in {@code direction}, if any succeeded. */
    Optional<BulkResult> fastest(String direction) {
        return bulk.stream().filter(r -> r.ok() && r.direction().equals(direction)).max(Comparator.comparingDouble(BulkResult::goodputMbps));
    }

    /** The verdict in plain words, one sentence a line. */
    public List<String> verdict() {
        List<String> lines = new ArrayList<>();
        for (String direction : List.of("up", "down", "bidir-up", "bidir-down")) {
            fastest(direction).ifPresent(best -> lines.add(fastestLine(direction, best)));
        }
        for (String scheme : List.of("tcp", "utp")) {
            for (String direction : List.of("up", "down")) {
                Optional<BulkResult> one = find(scheme, direction);
                Optional<BulkResult> four = find(scheme + "?streams=4", direction);
                if (one.isPresent() && four.isPresent() && one.get().goodputMbps() > 0) {
                    double gain = four.get().goodputMbps() / one.get().goodputMbps();
                    lines.add(String.format(Locale.ROOT, "%s --streams 4 %s: %s against %s Mbit/s over one stream (%.2f×).", scheme,
                            gain >= STRIPING_HELPS ? "helps " + words(direction) : "makes little difference " + words(direction),
                            mbps(four.get().goodputMbps()), mbps(one.get().goodputMbps()), gain));
                }
            }
        }
        if (fairness != null) {
            FairnessResult.Join j = fairness.tcpJoins();
            boolean yields = j.ledbatShare() <= YIELDED_SHARE && j.harm() >= HARMLESS;
            lines.add(String.format(Locale.ROOT, "The scavenger (utp, LEDBAT) %s: %.0f %% of the path from 2 s after a TCP flow joined, "
                            + "TCP kept %.0f %% of its rate alone.", yields ? "yields to TCP here" : "does not yield to TCP well here",
                    100 * j.ledbatShare(), 100 * j.harm()));
            lines.add(String.format(Locale.ROOT, "Alone it used %.0f %% of what TCP gets %s.", 100 * fairness.idleUse(),
                    fairness.addedDelayMillis() >= 1 ? String.format(Locale.ROOT, "and added %.1f ms of queuing delay", fairness.addedDelayMillis())
                            : "and added no measurable queuing delay"));
        } else if (fairnessSkipped != null) {
            lines.add("The scavenger's tests were not run: " + fairnessSkipped + ".");
        }
        bulk.stream().filter(r -> !r.ok()).forEach(r -> lines.add(r.transport() + " " + words(r.direction()) + " failed: " + r.error()));
        return lines;
    }

    /** The fastest each way, the others within {@link #NEAR} of it, and its ratio to tcp where tcp is not among them. */
    private String fastestLine(String direction, BulkResult best) {
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "Fastest %s: %s at %s Mbit/s", words(direction),
                best.transport(), mbps(best.goodputMbps())));
        List<String> near = new ArrayList<>();
        bulk.stream().filter(r -> r.ok() && r.direction().equals(direction) && r != best && r.goodputMbps() >= best.goodputMbps() * (1 - NEAR))
                .forEach(r -> near.add(r.transport() + " " + mbps(r.goodputMbps())));
        if (!near.isEmpty()) {
            line.append(String.format(Locale.ROOT, "; within %.0f %%: ", 100 * NEAR)).append(String.join(", ", near));
        }
        bulk.stream().filter(r -> r.ok() && r.direction().equals(direction) && r.transport().equals("tcp") && r != best
                        && r.goodputMbps() < best.goodputMbps() * (1 - NEAR)).findFirst()
                .ifPresent(tcp -> line.append(String.format(Locale.ROOT, " (%.1f× tcp's %s)", best.goodputMbps() / Math.max(1e-9, tcp.goodputMbps()),
                        mbps(tcp.goodputMbps()))));
        return line.append('.').toString();
    }

    private Optional<BulkResult> find(String transport, String direction) {
        return bulk.stream().filter(r -> r.ok() && r.transport().equals(transport) && r.direction().equals(direction)).findFirst();
    }

    /** A rate in Mbit/s with the digits that matter: 187, 16.4, 0.32. */
    static String mbps(double v) {
        return String.format(Locale.ROOT, v >= 100 ? "%.0f" : v >= 1 ? "%.1f" : "%.2f", v);
    }

    static String words(String direction) {
        return switch (direction) {
            case "up" -> "upload";
            case "down" -> "download";
            case "bidir-up" -> "upload (both ways at once)";
            case "bidir-down" -> "download (both ways at once)";
            default -> direction;
        };
    }
}
