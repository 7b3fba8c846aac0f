package io.ferry.bench.scenario;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.report.Charts;
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
 * (16 KiB..512 MiB), UDT vs uTP, plus each transport with its own defaults ("auto") and TCP with
 * kernel auto-tuning as a reference. A transfer that does not finish within the cap is reported with
 * the rate it reached and the time the whole file would take at that rate (marked as projected).
 */
final class BufferSweepStudy implements Study {

    static final long RATE = 200_000_000;
    static final Duration ONE_WAY = Duration.ofMillis(75);

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
        List<Long> buffers = ctx.pick(List.of(64L << 10, 4L << 20),
                List.of(16L << 10, 64L << 10, 256L << 10, 1L << 20, 4L << 20, 16L << 20, 64L << 20, 256L << 20, 512L << 20),
                List.of(16L << 10, 64L << 10, 256L << 10, 1L << 20, 4L << 20, 16L << 20, 64L << 20, 256L << 20, 512L << 20));
        long queue = LinkModel.queueFor(RATE, ONE_WAY.multipliedBy(2));
        LinkModel link = new LinkModel(0, RATE, queue, ONE_WAY, 11);
        String setup = Units.f("Link: %s each way (RTT %d ms, queue = one BDP). File: %s, generated and SHA-256-checked. "
                + "Buffers set with SEND_BUFFER_SIZE and RECEIVE_BUFFER_SIZE on both ends; `auto` = the transport's defaults. "
                + "Transfers capped at %d s: unfinished ones show the rate reached and the projected time for the whole file (`~`).",
                link.describe(), ONE_WAY.toMillis() * 2, Units.decimal(file), cap.toSeconds());
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
            Map<String, Object> tcp = new LinkedHashMap<>();
            rows.put("tcp (kernel auto-tuning, reference)", tcp);
            String c = cell(ctx, bed, "tcp", ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, "cubic").build(),
                    file, cap, tcp, "auto");
            table.append("| tcp cubic, kernel auto-tuning (reference) | ").append(c).append(" |")
                    .append(" |".repeat(buffers.size())).append('\n');
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

    private static String cell(StudyContext ctx, TestBed bed, String transport, ChannelOptions options, long file,
                               Duration cap, Map<String, Object> row, String column) {
        TransferResult r = Transfer.of(transport).withOptions(options).run(bed.client(), bed.server(), file, cap);
        Map<String, Object> cell = new LinkedHashMap<>();
        cell.put("ok", r.ok());
        cell.put("seconds", r.seconds());
        cell.put("bytes_received", r.bytesReceived());
        cell.put("mbit_per_s", r.mbitPerSecond());
        String text;
        if (r.ok()) {
            cell.put("seconds_for_file", r.seconds());
            text = Units.f("%s (%.0f Mbit/s)", Units.seconds(r.seconds()), r.mbitPerSecond());
        } else if (r.failure() != null && r.failure().startsWith("timeout") && r.bytesReceived() > 0) {
            double projected = file * 8 / (r.mbitPerSecond() * 1e6);
            cell.put("seconds_for_file", projected);
            cell.put("projected", true);
            text = Units.f("~%s (%.1f Mbit/s)", Units.seconds(projected), r.mbitPerSecond());
        } else {
            cell.put("failure", r.failure());
            text = "failed";
        }
        row.put(column, cell);
        ctx.log().printf("  buffers %-4s %-8s %s%s%n", transport, column, text, r.failure() != null && !r.ok() ? "  [" + r.failure() + "]" : "");
        return text;
    }
}
