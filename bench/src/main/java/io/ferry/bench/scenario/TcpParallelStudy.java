package io.ferry.bench.scenario;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.report.Charts;
import io.ferry.bench.report.Stats;
import io.ferry.bench.transfer.TransferResult;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Study 5: time to move a "page" split evenly over 1..8 parallel new connections, for each congestion
 * control, over a 100 ms RTT path with a 300 ms queue (the LTE study's discard threshold), clean and
 * with 1% random loss (a lossy radio link), plus the time of a larger bulk transfer over one connection.
 * The kernel's algorithms run on {@code tcp://}, Ferry's user-space ones inside uTP on {@code utp://},
 * side by side on the same emulated link. Every connection starts in slow start, as a browser's do; the
 * page time is when the last connection finished.
 */
final class TcpParallelStudy implements Study {

    static final long RATE = 20_000_000;
    static final Duration ONE_WAY = Duration.ofMillis(50);

    private final List<String> algorithms;

    /** @param algorithms the rows ({@link CcSpec#select}); empty for the profile's */
    TcpParallelStudy(List<String> algorithms) {
        this.algorithms = List.copyOf(algorithms);
        CcSpec.select(this.algorithms, List.of());
    }

    @Override
    public String id() {
        return "parallel";
    }

    @Override
    public String title() {
        return "5. Congestion control (kernel TCP and Ferry's user-space uTP) × parallel connections over a 100 ms RTT path";
    }

    @Override
    public StudyResult run(StudyContext ctx) throws Exception {
        StudyResult result = StudyResult.of(this);
        long page = ctx.pick(500_000L, 3_000_000L, 3_000_000L);
        long bulk = ctx.pick(1_000_000L, 5_000_000L, 20_000_000L);
        List<CcSpec> specs = CcSpec.select(algorithms, ctx.pick(
                List.of(new CcSpec("tcp", "cubic"), new CcSpec("utp", "cubic"), new CcSpec("utp", "bbr")), CcSpec.ALL, CcSpec.ALL));
        List<Integer> parallel = ctx.pick(List.of(1, 4), List.of(1, 2, 4, 8), List.of(1, 2, 3, 4, 6, 8));
        List<Double> losses = ctx.pick(List.of(0.0), List.of(0.0, 0.01), List.of(0.0, 0.01, 0.03));
        int reps = ctx.repetitionsOr(ctx.pick(1, 2, 5));
        Duration pageTimeout = Duration.ofSeconds(60);
        Duration bulkTimeout = Duration.ofSeconds(ctx.pick(30, 120, 300));
        long queue = LinkModel.queueFor(RATE, Duration.ofMillis(300));
        StringBuilder md = result.markdown();
        md.append(Units.f("Path: %s each way (RTT 100 ms, queue 300 ms); a page of %s split evenly over N new connections, "
                        + "the page time is when the last one finished; bulk = %s over one connection. `tcp` rows are the kernel's "
                        + "algorithms on Ferry's `tcp://` (epoll, `CONGESTION_CONTROL` → `TCP_CONGESTION`), `utp` rows Ferry's "
                        + "user-space controllers in the uTP core (`ledbat` is the scavenger, for reference). Every transfer is "
                        + "SHA-256-checked. Median of %d runs (min–max); bulk once per condition.%n%n",
                new LinkModel(0, RATE, queue, ONE_WAY, 1).describe(), Units.decimal(page), Units.decimal(bulk), reps));
        Map<CcSpec, String> missing = new LinkedHashMap<>();
        for (CcSpec s : specs) {
            s.missing(ctx.transports()).ifPresent(reason -> missing.put(s, reason));
        }
        List<Object> json = new ArrayList<>();
        Map<String, List<Double>> bulkChart = new LinkedHashMap<>();
        List<String> conditions = new ArrayList<>();
        for (double loss : losses) {
            String condition = loss == 0 ? "clean" : Units.f("%s %% loss", Units.number(100 * loss));
            conditions.add(condition);
            LinkModel link = new LinkModel(loss, RATE, queue, ONE_WAY, 55);
            md.append(Units.f("**%s**%n%n| algorithm | ", loss == 0 ? "No random loss" : Units.f("%s %% random loss each way", Units.number(100 * loss))))
                    .append(String.join(" | ", parallel.stream().map(n -> n + (n == 1 ? " connection" : " connections")).toList()))
                    .append(" | bulk ").append(Units.decimal(bulk)).append(" |\n|---|").append("---|".repeat(parallel.size() + 1)).append('\n');
            Map<String, List<double[]>> chart = new LinkedHashMap<>();
            try (TestBed bed = TestBed.emulated(link)) {
                for (CcSpec spec : specs) {
                    md.append("| ").append(spec.label()).append(" |");
                    Optional<String> notRun = Optional.ofNullable(missing.get(spec));
                    List<double[]> pts = new ArrayList<>();
                    for (int n : parallel) {
                        if (notRun.isPresent()) {
                            md.append(" not run |");
                            continue;
                        }
                        List<Double> times = new ArrayList<>();
                        List<String> failures = new ArrayList<>();
                        for (int r = 0; r < reps; r++) {
                            timed(spec.transfer().runParallel(bed.client(), bed.server(), Collections.nCopies(n, page / n), pageTimeout),
                                    times, failures);
                        }
                        String cell = cell(times, failures);
                        md.append(' ').append(cell).append(" |");
                        if (!times.isEmpty()) {
                            pts.add(new double[] {n, Stats.median(times)});
                        }
                        json.add(row(loss, spec, "page", n, page, times, failures));
                        ctx.log().printf("  parallel %-7s %-15s x%d: %s%n", condition, spec.label(), n, cell);
                    }
                    double bulkSeconds = Double.NaN;
                    if (notRun.isPresent()) {
                        md.append(" not run: ").append(notRun.get()).append(" |");
                        json.add(Map.of("loss", loss, "transport", spec.transport(), "cc", spec.cc(), "not_run", notRun.get()));
                    } else {
                        List<Double> times = new ArrayList<>();
                        List<String> failures = new ArrayList<>();
                        timed(spec.transfer().runParallel(bed.client(), bed.server(), List.of(bulk), bulkTimeout), times, failures);
                        String cell = times.isEmpty() ? cell(times, failures)
                                : Units.f("%.2f s (%.1f Mbit/s)", times.get(0), bulk * 8 / times.get(0) / 1e6);
                        md.append(' ').append(cell).append(" |");
                        bulkSeconds = times.isEmpty() ? Double.NaN : times.get(0);
                        json.add(row(loss, spec, "bulk", 1, bulk, times, failures));
                        ctx.log().printf("  parallel %-7s %-15s bulk: %s%n", condition, spec.label(), cell);
                    }
                    bulkChart.computeIfAbsent(condition, c -> new ArrayList<>()).add(bulkSeconds);
                    chart.put(spec.label(), pts);
                    md.append('\n');
                }
            }
            md.append('\n');
            String png = Units.f("parallel-loss%.0f.png", loss * 100);
            Charts.line(ctx.out().resolve(png), Units.f("Page of %s: time vs parallel connections, %s", Units.decimal(page), condition),
                    "parallel connections", "seconds (median)", Charts.series(chart), false, false);
            result.charts().add(png);
        }
        missing.forEach((spec, reason) -> md.append("`").append(spec.label()).append("` not run: ").append(reason).append(".\n\n"));
        Charts.bars(ctx.out().resolve("parallel-bulk.png"), Units.f("Bulk %s over one connection", Units.decimal(bulk)), "algorithm",
                "seconds", specs.stream().map(CcSpec::label).toList(), bulkChart);
        result.charts().add("parallel-bulk.png");
        result.data().put("page_bytes", page);
        result.data().put("bulk_bytes", bulk);
        result.data().put("conditions", conditions);
        result.data().put("runs", json);
        return result;
    }

    /** The time of the last connection to finish, or the first failure. */
    private static void timed(List<TransferResult> results, List<Double> times, List<String> failures) {
        double slowest = 0;
        for (TransferResult t : results) {
            if (!t.ok()) {
                failures.add(t.failure());
                return;
            }
            slowest = Math.max(slowest, t.seconds());
        }
        times.add(slowest);
    }

    private static String cell(List<Double> times, List<String> failures) {
        if (times.isEmpty()) {
            return "failed: " + failures.get(0);
        }
        String spread = times.size() == 1 ? Units.f("%.2f s", times.get(0))
                : Units.f("%.2f s (%.2f–%.2f)", Stats.median(times), Stats.min(times), Stats.max(times));
        return failures.isEmpty() ? spread : spread + Units.f(", %d failed", failures.size());
    }

    private static Map<String, Object> row(double loss, CcSpec spec, String kind, int connections, long bytes, List<Double> times,
                                           List<String> failures) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("loss", loss);
        m.put("transport", spec.transport());
        m.put("cc", spec.cc());
        m.put("kind", kind);
        m.put("connections", connections);
        m.put("bytes", bytes);
        m.put("seconds", times);
        m.put("median_seconds", Stats.median(times));
        m.put("failures", failures);
        return m;
    }
}
