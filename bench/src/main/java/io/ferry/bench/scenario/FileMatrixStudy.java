package io.ferry.bench.scenario;

import io.ferry.bench.netns.RootAccess;
import io.ferry.bench.report.Charts;
import io.ferry.bench.report.Stats;
import io.ferry.bench.transfer.Transfer;
import io.ferry.bench.transfer.TransferResult;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Study 2: every transport moves files of 1 B..110 MB with packets of 64 B..64 KB, locally, over a
 * link with 50 ms of delay, and over a link losing 25% of packets each way; each transfer is checked
 * byte-exact and counted as a success or a failure (out of the repetitions). When every repetition of
 * a size fails by timeout, larger sizes of the same cell are not attempted (reported as skipped).
 */
final class FileMatrixStudy implements Study {

    private final MatrixSelection selection;

    FileMatrixStudy(MatrixSelection selection) {
        this.selection = selection;
    }

    @Override
    public String id() {
        return "matrix";
    }

    @Override
    public String title() {
        return "2. File size × packet size × condition, every transport, byte-exact";
    }

    @Override
    public Optional<String> cannotRun() {
        return Optional.empty();
    }

    @Override
    public StudyResult run(StudyContext ctx) throws Exception {
        StudyResult result = StudyResult.of(this);
        List<Long> sizes = selection.fileSizesOr(ctx);
        int reps = ctx.repetitionsOr(ctx.pick(1, 5, 5));
        List<MatrixSelection.Condition> conditions = selection.conditionsOr(ctx);
        result.markdown().append(Units.f("Files %s; `PACKET_SIZE` is TCP_MAXSEG for tcp and the datagram size for utp/udt; "
                        + "%d repetitions; each transfer checked with SHA-256. Cells: median time of the successful "
                        + "transfers (successes/repetitions). `refused` = the transport rejects that packet size; `skipped` = a smaller "
                        + "file of the same cell already timed out every time.%n%n",
                sizes.stream().map(Units::decimal).toList(), reps));
        List<Object> json = new ArrayList<>();
        Map<String, List<double[]>> chart = new LinkedHashMap<>();
        for (MatrixSelection.Condition condition : conditions) {
            List<Integer> packets = selection.packetSizesOr(ctx, condition);
            Duration timeout = MatrixSelection.timeout(ctx, condition);
            result.markdown().append("**").append(condition.name()).append("** (").append(condition.description())
                    .append("; packets ").append(packets.stream().map(p -> Units.decimal(p)).toList())
                    .append("; ").append(timeout.toSeconds()).append(" s per transfer)\n\n")
                    .append("| transport | packet | ").append(String.join(" | ", sizes.stream().map(Units::decimal).toList()))
                    .append(" |\n|---|---|").append("---|".repeat(sizes.size())).append('\n');
            if (condition.link() != null && !RootAccess.available()) {
                result.markdown().append("| all | all |").append((" skipped: " + RootAccess.missing().orElse("") + " |").repeat(sizes.size())).append("\n\n");
                json.add(Map.of("condition", condition.name(), "skipped", RootAccess.missing().orElse("")));
                continue;
            }
            try (TestBed bed = condition.link() == null ? TestBed.loopback() : TestBed.emulated(condition.link())) {
                for (String transport : selection.transportsOr(ctx)) {
                    for (int packet : packets) {
                        result.markdown().append("| ").append(transport).append(" | ").append(Units.decimal(packet)).append(" |");
                        if (!ctx.transports().installed(transport)) {
                            result.markdown().append(" transport not installed |".repeat(sizes.size())).append('\n');
                            json.add(Map.of("condition", condition.name(), "transport", transport, "packet", packet,
                                    "status", "transport not installed"));
                            continue;
                        }
                        boolean dead = false;
                        List<double[]> points = new ArrayList<>();
                        for (long size : sizes) {
                            Map<String, Object> cell = new LinkedHashMap<>();
                            cell.put("condition", condition.name());
                            cell.put("transport", transport);
                            cell.put("packet", packet);
                            cell.put("file", size);
                            json.add(cell);
                            if (dead) {
                                cell.put("status", "skipped: a smaller file timed out every time");
                                result.markdown().append(" skipped |");
                                continue;
                            }
                            ChannelOptions options;
                            try {
                                options = ChannelOptions.builder().set(FerryChannelOption.PACKET_SIZE, packet).build();
                            } catch (IllegalArgumentException e) {
                                cell.put("status", "refused: " + e.getMessage());
                                result.markdown().append(" refused |");
                                continue;
                            }
                            List<Double> times = new ArrayList<>();
                            List<String> failures = new ArrayList<>();
                            int timeouts = 0;
                            for (int r = 0; r < reps; r++) {
                                TransferResult t = Transfer.of(transport).withOptions(options).run(bed.client(), bed.server(), size, timeout);
                                if (t.ok()) {
                                    times.add(t.seconds());
                                } else {
                                    failures.add(t.failure());
                                    if (t.failure().startsWith("timeout")) {
                                        timeouts++;
                                    }
                                    if (isRefusal(t.failure())) {
                                        break;
                                    }
                                }
                            }
                            cell.put("successes", times.size());
                            cell.put("repetitions", reps);
                            cell.put("seconds", times);
                            cell.put("failures", failures);
                            String text;
                            if (!failures.isEmpty() && isRefusal(failures.get(0)) && times.isEmpty()) {
                                text = "refused";
                                cell.put("status", "refused: " + failures.get(0));
                            } else {
                                double median = Stats.median(times);
                                text = times.isEmpty() ? Units.f("— (0/%d)", reps) : Units.f("%s (%d/%d)", Units.seconds(median), times.size(), reps);
                                if (!times.isEmpty()) {
                                    points.add(new double[] {size, median});
                                }
                            }
                            dead = timeouts == reps;
                            result.markdown().append(' ').append(text).append(" |");
                            ctx.log().printf("  matrix %-11s %-4s packet %-6s file %-7s %s%s%n", condition.name(), transport,
                                    Units.decimal(packet), Units.decimal(size), text, failures.isEmpty() ? "" : "  [" + failures.get(0) + "]");
                        }
                        result.markdown().append('\n');
                        if (packet == 1_500) {
                            chart.put(transport + ", " + condition.name(), points);
                        }
                    }
                }
            }
            result.markdown().append('\n');
        }
        result.data().put("cells", json);
        String png = "matrix.png";
        Charts.line(ctx.out().resolve(png), "Median transfer time vs file size, 1500-byte packets", "file size (bytes)", "seconds",
                Charts.series(chart), true, true);
        result.charts().add(png);
        return result;
    }

    private static boolean isRefusal(String failure) {
        return failure != null && (failure.contains("UnsupportedOption") || failure.contains("must be between")
                || failure.contains("IllegalArgument") || failure.contains("Invalid argument"));
    }
}
