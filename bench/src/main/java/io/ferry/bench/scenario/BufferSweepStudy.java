package io.ferry.bench.scenario;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.report.Charts;
import io.ferry.bench.transfer.ReferenceTransfers;
import io.ferry.bench.transfer.Transfer;
import io.ferry.bench.transfer.TransferResult;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Study 1: transfer time of a file over a long fat link against the send/receive buffer size
 * (16 KiB..512 MiB), UDT vs uTP, plus each transport with its own defaults ("auto"), UDT with UDT4's
 * own congestion control, and as references in the same run TCP with kernel auto-tuning, iperf3 and
 * Debian's native UDT4, each with the emulator's CPU share beside it. A transfer that does not finish within the cap is reported with
 * the rate it reached and the time the whole file would take at that rate (marked as projected).
 */
final class BufferSweepStudy implements Study {

    static final long RATE = 200_000_000;
    static final Duration ONE_WAY = Duration.ofMillis(75);
    /** What each transport moves, unreported, before the first measured transfer. */
    static final long WARM_UP_BYTES = 30_000_000;

    /** The buffer sizes swept; empty: the profile's; {@code [0]}: none. */
    private final List<Long> bufferSizes;

    BufferSweepStudy() {
        this(List.of());
    }

    BufferSweepStudy(List<Long> bufferSizes) {
        this.bufferSizes = List.copyOf(bufferSizes);
        if (this.bufferSizes.stream().anyMatch(b -> b < 0 || b > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException("--buffer-sizes: each value must be between 0 and " + Integer.MAX_VALUE + " bytes");
        }
    }

    @Override
    public String id() {
        return "buffers";
    }

    @Override
    public String title() {
        return "1. Buffer-size sweep on a long fat link (UDT vs uTP)";
    }

    @Override
    public StudyResult run(StudyContext ctx) throws Exception {
        StudyResult result = StudyResult.of(this);
        long file = ctx.pick(2_000_000L, 200_000_000L, 200_000_000L);
        Duration cap = ctx.pick(Duration.ofSeconds(10), Duration.ofSeconds(25), Duration.ofSeconds(600));
        List<Long> buffers = !bufferSizes.isEmpty() ? bufferSizes.stream().filter(b -> b > 0).toList()
                : ctx.pick(List.of(64L << 10, 4L << 20),
                List.of(16L << 10, 64L << 10, 256L << 10, 1L << 20, 4L << 20, 16L << 20, 64L << 20, 256L << 20, 512L << 20),
                List.of(16L << 10, 64L << 10, 256L << 10, 1L << 20, 4L << 20, 16L << 20, 64L << 20, 256L << 20, 512L << 20));
        long queue = LinkModel.queueFor(RATE, ONE_WAY.multipliedBy(2));
        LinkModel link = new LinkModel(0, RATE, queue, ONE_WAY, 11);
        String setup = Units.f("Link: %s each way (RTT %d ms, queue = one BDP). File: %s, generated and SHA-256-checked. "
                + "Buffers set with SEND_BUFFER_SIZE and RECEIVE_BUFFER_SIZE on both ends; `auto` = the transport's defaults. "
                + "Each transport first moves %s over the link unreported (the JVM's warm-up; the native references need none). "
                + "Transfers capped at %d s: unfinished ones show the rate reached and the projected time for the whole file (`~`).",
                link.describe(), ONE_WAY.toMillis() * 2, Units.decimal(file), Units.decimal(Math.min(file, WARM_UP_BYTES)), cap.toSeconds());
        result.markdown().append(setup).append("\n\n");
        result.data().put("link", link.describe());
        result.data().put("file_bytes", file);
        result.data().put("cap_seconds", cap.toSeconds());
        List<String> columns = new ArrayList<>();
        columns.add("auto");
        buffers.forEach(b -> columns.add(Units.binary(b)));
        Map<String, Map<String, Object>> rows = new LinkedHashMap<>();
        Map<String, List<double[]>> chart = new LinkedHashMap<>();
        StringBuilder table = new StringBuilder("| transport | " + String.join(" | ", columns) + " |\n|---|"
                + "---|".repeat(columns.size()) + "\n");
        try (TestBed bed = TestBed.emulated(link)) {
            warmUp(ctx, bed, file, cap);
            for (String transport : ctx.transports().all()) {
                if (transport.equals("tcp")) {
                    continue;
                }
                Map<String, Object> row = new LinkedHashMap<>();
                rows.put(transport, row);
                table.append("| ").append(transport).append(" |");
                if (!ctx.transports().installed(transport)) {
                    table.append(" transport not installed |".repeat(columns.size())).append('\n');
                    row.put("status", "transport not installed");
                    continue;
                }
                List<double[]> points = new ArrayList<>();
                table.append(' ').append(cell(ctx, bed, transport, ChannelOptions.empty(), file, cap, row, "auto")).append(" |");
                for (long size : buffers) {
                    ChannelOptions options;
                    try {
                        options = ChannelOptions.builder().set(FerryChannelOption.SEND_BUFFER_SIZE, (int) Math.min(size, Integer.MAX_VALUE))
                                .set(FerryChannelOption.RECEIVE_BUFFER_SIZE, (int) Math.min(size, Integer.MAX_VALUE)).build();
                    } catch (IllegalArgumentException e) {
                        table.append(" refused |");
                        row.put(Units.binary(size), Map.of("failure", e.getMessage()));
                        continue;
                    }
                    String c = cell(ctx, bed, transport, options, file, cap, row, Units.binary(size));
                    table.append(' ').append(c).append(" |");
                    Object seconds = ((Map<?, ?>) row.get(Units.binary(size))).get("seconds_for_file");
                    if (seconds instanceof Double d) {
                        points.add(new double[] {size, d});
                    }
                }
                chart.put(transport, points);
                table.append('\n');
            }
            if (ctx.transports().installed("udt")) {
                Map<String, Object> native_ = new LinkedHashMap<>();
                rows.put("udt:udt", native_);
                String c = cell(ctx, bed, "udt:udt", ChannelOptions.empty(), file, cap, native_, "auto");
                table.append("| udt, CONGESTION_CONTROL=udt (UDT4's own control) | ").append(c).append(" |")
                        .append(" |".repeat(buffers.size())).append('\n');
            }
            Map<String, Object> tcp = new LinkedHashMap<>();
            rows.put("tcp (kernel auto-tuning, reference)", tcp);
            String c = cell(ctx, bed, "tcp", ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, "cubic").build(),
                    file, cap, tcp, "auto");
            table.append("| tcp cubic, kernel auto-tuning (reference) | ").append(c).append(" |")
                    .append(" |".repeat(buffers.size())).append('\n');
            references(ctx, bed, file, cap, rows, table, buffers.size());
        }
        result.data().put("results", rows);
        result.markdown().append(table).append('\n');
        String png = "buffers.png";
        Charts.line(ctx.out().resolve(png), "Time for " + Units.decimal(file) + " vs buffer size (" + link.describe() + ")",
                "buffer size (bytes)", "seconds (measured or projected)", Charts.series(chart), true, true);
        result.charts().add(png);
        result.markdown().append("Failures and refusals, if any, are listed in the JSON report with their reasons.\n");
        return result;
    }

    /**
     * One unreported transfer per installed transport over the same link before anything is measured.
     * Every Ferry endpoint lives in this one JVM, so without it the first transport measured runs its
     * handshake, slow start and first seconds in the interpreter (its receiver late, which a
     * delay-based control reads as a queue) while the later ones run compiled code; the native
     * references (iperf3, libudt) need no warm-up.
     */
    private static void warmUp(StudyContext ctx, TestBed bed, long file, Duration cap) {
        long size = Math.min(file, WARM_UP_BYTES);
        long t0 = System.nanoTime();
        for (String transport : ctx.transports().all()) {
            if (ctx.transports().installed(transport)) {
                TransferResult r = Transfer.of(transport).run(bed.client(), bed.server(), size, cap);
                if (!r.ok()) {
                    ctx.log().printf("  buffers warm-up %s failed: %s%n", transport, r.failure());
                }
            }
        }
        ctx.log().printf("  buffers warm-up: %s over each transport, not reported (%.1f s)%n", Units.decimal(size),
                (System.nanoTime() - t0) / 1e9);
    }

    /**
     * The best alternatives on the same link, in the same run: iperf3 (kernel TCP CUBIC, memory to
     * memory) and Debian's native UDT4 with its defaults; then Ferry's transports as ratios of them.
     */
    private static void references(StudyContext ctx, TestBed bed, long file, Duration cap, Map<String, Map<String, Object>> rows,
                                   StringBuilder table, int sweepColumns) {
        Map<String, Object> iperf = referenceRow(ctx, bed, rows, table, sweepColumns, file, "iperf3 cubic (reference)",
                "iperf3 -C cubic (reference)", ReferenceTransfers.iperf3Missing(),
                () -> ReferenceTransfers.iperf3(bed.clientNamespace(), bed.serverNamespace(), bed.server().host().address(), file, "cubic", cap));
        Map<String, Object> libudt = referenceRow(ctx, bed, rows, table, sweepColumns, file, "native libudt (reference)",
                "native libudt 4.11, defaults (reference)", ReferenceTransfers.libudtMissing(),
                () -> ReferenceTransfers.libudt(bed.clientNamespace(), bed.serverNamespace(), bed.server().host().address(), file, cap));
        StringBuilder ratios = new StringBuilder();
        double iperfRate = rate(iperf);
        double udtRate = rate(libudt);
        for (String transport : List.of("tcp (kernel auto-tuning, reference)", "utp", "udt", "udt:udt")) {
            Map<String, Object> row = rows.get(transport);
            if (row == null || !(row.get("auto") instanceof Map<?, ?> auto) || !(auto.get("mbit_per_s") instanceof Double r)) {
                continue;
            }
            String name = transport.startsWith("tcp") ? "tcp" : transport;
            if (iperfRate > 0) {
                ratios.append(Units.f("%s / iperf3 = %.2f; ", name, r / iperfRate));
                row.put("ratio_to_iperf3", r / iperfRate);
            }
            if (udtRate > 0 && transport.startsWith("udt")) {
                ratios.append(Units.f("%s / native libudt = %.2f; ", name, r / udtRate));
                row.put("ratio_to_libudt", r / udtRate);
            }
        }
        if (ratios.length() > 0) {
            table.append('\n').append("Ratios of the `auto` rates: ").append(ratios, 0, ratios.length() - 2).append(".\n");
        }
    }

    private static Map<String, Object> referenceRow(StudyContext ctx, TestBed bed, Map<String, Map<String, Object>> rows,
                                                    StringBuilder table, int sweepColumns, long file, String key, String label,
                                                    java.util.Optional<String> missing,
                                                    java.util.function.Supplier<ReferenceTransfers.Result> run) {
        Map<String, Object> row = new LinkedHashMap<>();
        rows.put(key, row);
        String text;
        if (missing.isPresent()) {
            row.put("status", missing.get());
            text = "not run: " + missing.get();
        } else {
            text = referenceCell(ctx, bed, row, key, file, run);
        }
        table.append("| ").append(label).append(" | ").append(text).append(" |").append(" |".repeat(sweepColumns)).append('\n');
        return row;
    }

    private static double rate(Map<String, Object> row) {
        return row.get("mbit_per_s") instanceof Double d && Boolean.TRUE.equals(row.get("ok")) ? d : 0;
    }

    private static String referenceCell(StudyContext ctx, TestBed bed, Map<String, Object> row, String name, long file,
                                        java.util.function.Supplier<ReferenceTransfers.Result> run) {
        long cpu0 = bed.emulator().map(e -> e.cpuNanos()).orElse(-1L);
        long t0 = System.nanoTime();
        ReferenceTransfers.Result r = run.get();
        double wall = (System.nanoTime() - t0) / 1e9;
        long cpu1 = bed.emulator().map(e -> e.cpuNanos()).orElse(-1L);
        row.put("ok", r.ok());
        row.put("seconds", r.seconds());
        row.put("bytes_received", r.bytes());
        row.put("mbit_per_s", r.mbitPerSecond());
        String emulator = emulatorCpu(row, cpu0, cpu1, wall);
        String text = !r.ok() ? "failed: " + r.failure()
                : r.bytes() < file
                // iperf3 -n ends when the sender has written the file; its receiver has most of it by then
                ? Units.f("%.0f Mbit/s (%s of %s received in %s%s)", r.mbitPerSecond(), Units.decimal(r.bytes()), Units.decimal(file),
                        Units.seconds(r.seconds()), emulator)
                : Units.f("%s (%.0f Mbit/s%s)", Units.seconds(r.seconds()), r.mbitPerSecond(), emulator);
        if (!r.ok()) {
            row.put("failure", r.failure());
        }
        ctx.log().printf("  buffers %-6s %s%n", name, text);
        return text;
    }

    /** The emulator's CPU over a cell, as a share of one core; recorded in the row, returned as text. */
    private static String emulatorCpu(Map<String, Object> row, long cpu0, long cpu1, double wallSeconds) {
        if (cpu0 < 0 || cpu1 < 0 || wallSeconds <= 0) {
            return "";
        }
        double share = (cpu1 - cpu0) / 1e9 / wallSeconds;
        row.put("emulator_cpu_share_of_one_core", share);
        return Units.f(", emulator %.0f %% CPU", share * 100);
    }

    private static String cell(StudyContext ctx, TestBed bed, String transport, ChannelOptions options, long file,
                               Duration cap, Map<String, Object> row, String column) {
        long cpu0 = bed.emulator().map(e -> e.cpuNanos()).orElse(-1L);
        long t0 = System.nanoTime();
        TransferResult r = Transfer.of(transport).withOptions(options).run(bed.client(), bed.server(), file, cap);
        double wall = (System.nanoTime() - t0) / 1e9;
        long cpu1 = bed.emulator().map(e -> e.cpuNanos()).orElse(-1L);
        Map<String, Object> cell = new LinkedHashMap<>();
        String emulator = column.equals("auto") ? emulatorCpu(cell, cpu0, cpu1, wall) : "";
        cell.put("ok", r.ok());
        cell.put("seconds", r.seconds());
        cell.put("bytes_received", r.bytesReceived());
        cell.put("mbit_per_s", r.mbitPerSecond());
        String text;
        if (r.ok()) {
            cell.put("seconds_for_file", r.seconds());
            text = Units.f("%s (%.0f Mbit/s%s)", Units.seconds(r.seconds()), r.mbitPerSecond(), emulator);
        } else if (r.failure() != null && r.failure().startsWith("timeout") && r.bytesReceived() > 0) {
            double projected = file * 8 / (r.mbitPerSecond() * 1e6);
            cell.put("seconds_for_file", projected);
            cell.put("projected", true);
            text = Units.f("~%s (%.1f Mbit/s%s)", Units.seconds(projected), r.mbitPerSecond(), emulator);
        } else {
            cell.put("failure", r.failure());
            text = "failed";
        }
        row.put(column, cell);
        ctx.log().printf("  buffers %-4s %-8s %s%s%n", transport, column, text, r.failure() != null && !r.ok() ? "  [" + r.failure() + "]" : "");
        return text;
    }
}
