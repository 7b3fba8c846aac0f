package io.ferry.bench.scenario;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.report.Stats;
import io.ferry.bench.transfer.Transfer;
import io.ferry.bench.transfer.TransferResult;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Study 5b, the second half of study 5: does one striped channel ({@link FerryChannelOption#STREAMS})
 * give one application stream the speed-up of N parallel TCP connections? A file is moved over one
 * connection, over N independent connections (the file split evenly, as study 5 does), and over one
 * channel striped over N connections, on the paths where one TCP connection is slow: random loss on a
 * 100 ms RTT (CUBIC's window stays small), and a long fat path with 1 MiB socket buffers (one
 * connection is capped at window / RTT).
 */
final class StripedStudy implements Study {

    /** The transports whose striping is measured (tcp by default; quic's members are streams of one connection). */
    private final List<String> transports;

    StripedStudy(List<String> transports) {
        this.transports = transports.isEmpty() ? List.of("tcp") : List.copyOf(transports);
    }

    /** One path and file of the study. */
    private record Row(String name, LinkModel link, long bytes, ChannelOptions options) {
    }

    /** The same speed-up end to end: {@code ferry send --streams 1} and {@code --streams N} as processes, a file on disk. */
    private static void ferryCli(StudyContext ctx, StudyResult result, Row row, int streams, int reps, Duration timeout,
                                 List<Object> json) throws Exception {
        java.util.Optional<String> missing = io.ferry.bench.transfer.ReferenceTransfers.ferryMissing();
        result.markdown().append(Units.f("`ferry send FILE` and `ferry send --streams %d FILE` to `ferry receive --once` (separate "
                + "processes in the namespaces, files on disk, SHA-256 verified by the receiver and the received file compared) on %s:%n%n",
                streams, row.name()));
        if (missing.isPresent()) {
            result.markdown().append("Skipped: ").append(missing.get()).append("\n\n");
            return;
        }
        double[] medians = new double[2];
        String[] cells = new String[2];
        try (TestBed bed = TestBed.emulated(row.link())) {
            for (int mode = 0; mode < 2; mode++) {
                int n = mode == 0 ? 1 : streams;
                List<Double> times = new ArrayList<>();
                List<String> failures = new ArrayList<>();
                for (int r = 0; r < reps; r++) {
                    io.ferry.bench.transfer.ReferenceTransfers.Result t = io.ferry.bench.transfer.ReferenceTransfers.ferrySend(
                            bed.clientNamespace(), bed.serverNamespace(), bed.server().host().address(), row.bytes(), n, "cubic", timeout);
                    if (t.ok()) {
                        times.add(t.seconds());
                    } else {
                        failures.add(t.failure());
                    }
                }
                medians[mode] = times.isEmpty() ? Double.NaN : Stats.median(times);
                cells[mode] = times.isEmpty() ? "failed: " + failures.get(0)
                        : Units.f("%.2f s (%.2f–%.2f)", medians[mode], Stats.min(times), Stats.max(times));
                json.add(Map.of("path", row.name(), "bytes", row.bytes(), "mode", "ferry send --streams " + n, "seconds", times, "failures", failures));
                ctx.log().printf("  striped ferry send --streams %d, %s: %s%n", n, row.name(), cells[mode]);
            }
        }
        result.markdown().append(Units.f("| file | `--streams 1` | `--streams %d` | speed-up |%n|---|---|---|---|%n| %s | %s | %s | %.2f× |%n%n",
                streams, Units.decimal(row.bytes()), cells[0], cells[1], medians[0] / medians[1]));
    }

    @Override
    public String id() {
        return "striped";
    }

    @Override
    public String title() {
        return "5b. One striped channel vs N independent connections";
    }

    @Override
    public StudyResult run(StudyContext ctx) throws Exception {
        StudyResult result = StudyResult.of(this);
        int streams = 4;
        int reps = ctx.repetitionsOr(ctx.pick(1, 3, 5));
        ChannelOptions cubic = ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, "cubic").build();
        // QUIC has no send buffer of its own to size: its stream window (RECEIVE_BUFFER_SIZE) caps it as the socket buffers cap TCP
        ChannelOptions smallBuffers = cubic.toBuilder().set(FerryChannelOption.RECEIVE_BUFFER_SIZE, 1 << 20).build();
        ChannelOptions smallSocketBuffers = smallBuffers.toBuilder().set(FerryChannelOption.SEND_BUFFER_SIZE, 1 << 20).build();
        Duration rtt100 = Duration.ofMillis(50);
        List<Row> rows = List.of(
                new Row("20 Mbit/s, 100 ms RTT, 1 % loss", new LinkModel(0.01, 20_000_000,
                        LinkModel.queueFor(20_000_000, Duration.ofMillis(100)), rtt100, 91), ctx.pick(2_000_000L, 8_000_000L, 16_000_000L), cubic),
                new Row("200 Mbit/s, 100 ms RTT, 1 % loss", new LinkModel(0.01, 200_000_000,
                        LinkModel.queueFor(200_000_000, Duration.ofMillis(100)), rtt100, 92), ctx.pick(2_000_000L, 8_000_000L, 16_000_000L), cubic),
                new Row("200 Mbit/s, 150 ms RTT, clean, 1 MiB socket buffers", new LinkModel(0, 200_000_000,
                        LinkModel.queueFor(200_000_000, Duration.ofMillis(150)), Duration.ofMillis(75), 93),
                        ctx.pick(50_000_000L, 600_000_000L, 1_000_000_000L), smallBuffers));
        Duration timeout = Duration.ofSeconds(ctx.pick(60, 240, 400));
        result.markdown().append(Units.f("Each transport with CUBIC; one file moved over 1 connection, over %d independent connections "
                + "(the file split evenly; time until the last one finished) and over one channel with `STREAMS=%d` (for quic: %d streams "
                + "of one QUIC connection); median of %d runs (min–max), and the goodput as a share of the link.%n%n", streams, streams,
                streams, reps));
        result.markdown().append(Units.f("| transport | path | file | 1 connection | %d connections | 1 channel × %d streams | striped vs 1 | striped vs %d |%n"
                + "|---|---|---|---|---|---|---|---|%n", streams, streams, streams));
        List<Object> json = new ArrayList<>();
        for (String transport : transports) {
            if (!ctx.transports().installed(transport)) {
                result.markdown().append(Units.f("| %s | not installed | | | | | | |%n", transport));
                continue;
            }
            for (Row r : rows) {
                Row row = r.options() == smallBuffers && !transport.equals("quic") ? new Row(r.name(), r.link(), r.bytes(), smallSocketBuffers) : r;
                measure(ctx, transport, row, streams, reps, timeout, result, json);
            }
        }
        result.markdown().append('\n');
        if (transports.contains("tcp") && ctx.transports().installed("tcp")) {
            ferryCli(ctx, result, rows.get(0), streams, reps, timeout, json);
        }
        result.data().put("streams", streams);
        result.data().put("transports", transports);
        result.data().put("runs", json);
        return result;
    }

    /** One path's three ways over one transport: a row of the table. */
    private static void measure(StudyContext ctx, String transport, Row row, int streams, int reps, Duration timeout,
                                StudyResult result, List<Object> json) throws Exception {
        {
            double[] medians = new double[3];
            String[] cells = new String[3];
            try (TestBed bed = TestBed.emulated(row.link())) {
                for (int mode = 0; mode < 3; mode++) {
                    List<Double> times = new ArrayList<>();
                    List<String> failures = new ArrayList<>();
                    for (int r = 0; r < reps; r++) {
                        double seconds;
                        String failure = null;
                        if (mode == 1) {
                            List<TransferResult> parts = Transfer.of(transport).withOptions(row.options()).runParallel(bed.client(), bed.server(),
                                    Collections.nCopies(streams, row.bytes() / streams), timeout);
                            seconds = 0;
                            for (TransferResult t : parts) {
                                seconds = Math.max(seconds, t.seconds());
                                if (!t.ok() && failure == null) {
                                    failure = t.failure();
                                }
                            }
                        } else {
                            ChannelOptions options = mode == 2
                                    ? row.options().toBuilder().set(FerryChannelOption.STREAMS, streams).build() : row.options();
                            TransferResult t = Transfer.of(transport).withOptions(options).run(bed.client(), bed.server(), row.bytes(), timeout);
                            seconds = t.seconds();
                            failure = t.ok() ? null : t.failure();
                        }
                        if (failure == null) {
                            times.add(seconds);
                        } else {
                            failures.add(failure);
                        }
                    }
                    medians[mode] = times.isEmpty() ? Double.NaN : Stats.median(times);
                    cells[mode] = times.isEmpty() ? "failed" : Units.f("%.2f s (%.2f–%.2f), %.0f %%", medians[mode], Stats.min(times), Stats.max(times),
                            100.0 * row.bytes() * 8 / medians[mode] / row.link().rateBitsPerSecond());
                    String label = mode == 0 ? "1 connection" : mode == 1 ? streams + " connections" : "striped x" + streams;
                    json.add(Map.of("transport", transport, "path", row.name(), "bytes", row.bytes(), "mode", label, "seconds", times,
                            "failures", failures));
                    ctx.log().printf("  striped %s %s, %s: %s%n", transport, row.name(), label, cells[mode]);
                }
            }
            result.markdown().append(Units.f("| %s | %s | %s | %s | %s | %s | %.2f× faster | %.2f× the time |%n", transport, row.name(),
                    Units.decimal(row.bytes()), cells[0], cells[1], cells[2], medians[0] / medians[2], medians[2] / medians[1]));
        }
    }
}
