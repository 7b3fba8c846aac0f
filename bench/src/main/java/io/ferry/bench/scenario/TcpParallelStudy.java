package io.ferry.bench.scenario;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.report.Charts;
import io.ferry.bench.report.Stats;
import io.ferry.bench.transfer.Transfer;
import io.ferry.bench.transfer.TransferResult;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Study 5: time to move a "page" split evenly over 1..8 parallel new TCP connections, for each
 * congestion control, over a 100 ms RTT path with a 300 ms queue (the LTE study's discard threshold),
 * clean and with 1% random loss (a lossy radio link). Every connection starts in slow start, as a
 * browser's do; the page time is when the last connection finished.
 */
final class TcpParallelStudy implements Study {

    static final long RATE = 20_000_000;
    static final Duration ONE_WAY = Duration.ofMillis(50);

    @Override
    public String id() {
        return "parallel";
    }

    @Override
    public String title() {
        return "5. TCP congestion control × parallel connections over a 100 ms RTT path";
    }

    @Override
    public StudyResult run(StudyContext ctx) throws Exception {
        StudyResult result = StudyResult.of(this);
        long page = ctx.pick(500_000L, 3_000_000L, 3_000_000L);
        List<String> ccs = ctx.pick(List.of("cubic"), List.of("reno", "cubic", "bbr"), List.of("reno", "cubic", "bbr"));
        List<Integer> parallel = ctx.pick(List.of(1, 4), List.of(1, 2, 4, 8), List.of(1, 2, 3, 4, 6, 8));
        List<Double> losses = ctx.pick(List.of(0.0), List.of(0.0, 0.01), List.of(0.0, 0.01, 0.03));
        int reps = ctx.repetitionsOr(ctx.pick(1, 3, 5));
        Duration timeout = Duration.ofSeconds(60);
        result.markdown().append(Units.f("Path: %s each way (RTT 100 ms, queue 300 ms); page of %s split evenly over N new connections "
                        + "(client to server, `CONGESTION_CONTROL` set on the sending side); median of %d runs (min–max).%n%n",
                new LinkModel(0, RATE, LinkModel.queueFor(RATE, Duration.ofMillis(300)), ONE_WAY, 1).describe(), Units.decimal(page), reps));
        if (!ctx.transports().installed("tcp")) {
            result.markdown().append("Needs the tcp transport, which is not installed.\n");
            result.data().put("status", "transport not installed");
            return result;
        }
        List<Object> json = new ArrayList<>();
        for (double loss : losses) {
            LinkModel link = new LinkModel(loss, RATE, LinkModel.queueFor(RATE, Duration.ofMillis(300)), ONE_WAY, 55);
            result.markdown().append(Units.f("**%s random loss**%n%n| congestion control | ", loss == 0 ? "no" : Units.f("%.0f%%", loss * 100)))
                    .append(String.join(" | ", parallel.stream().map(n -> n + (n == 1 ? " connection" : " connections")).toList()))
                    .append(" |\n|---|").append("---|".repeat(parallel.size())).append('\n');
            Map<String, List<double[]>> chart = new LinkedHashMap<>();
            try (TestBed bed = TestBed.emulated(link)) {
                for (String cc : ccs) {
                    result.markdown().append("| ").append(cc).append(" |");
                    List<double[]> pts = new ArrayList<>();
                    for (int n : parallel) {
                        Transfer transfer = Transfer.of("tcp").withOptions(
                                ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, cc).build());
                        List<Double> times = new ArrayList<>();
                        List<String> failures = new ArrayList<>();
                        for (int r = 0; r < reps; r++) {
                            List<TransferResult> results = transfer.runParallel(bed.client(), bed.server(),
                                    Collections.nCopies(n, page / n), timeout);
                            double slowest = 0;
                            String failure = null;
                            for (TransferResult t : results) {
                                slowest = Math.max(slowest, t.seconds());
                                if (!t.ok() && failure == null) {
                                    failure = t.failure();
                                }
                            }
                            if (failure == null) {
                                times.add(slowest);
                            } else {
                                failures.add(failure);
                            }
                        }
                        double median = Stats.median(times);
                        String cell = times.isEmpty() ? "failed" : Units.f("%.2f s (%.2f–%.2f)", median, Stats.min(times), Stats.max(times));
                        result.markdown().append(' ').append(cell).append(" |");
                        if (!times.isEmpty()) {
                            pts.add(new double[] {n, median});
                        }
                        json.add(Map.of("loss", loss, "cc", cc, "connections", n, "seconds", times, "failures", failures));
                        ctx.log().printf("  parallel loss %.0f%% %-5s x%d: %s%n", loss * 100, cc, n, cell);
                    }
                    chart.put(cc, pts);
                    result.markdown().append('\n');
                }
            }
            result.markdown().append('\n');
            String png = Units.f("parallel-loss%.0f.png", loss * 100);
            Charts.line(ctx.out().resolve(png), Units.f("Page time vs parallel connections, %.0f%% loss", loss * 100),
                    "parallel connections", "seconds (median)", Charts.series(chart), false, false);
            result.charts().add(png);
        }
        result.data().put("page_bytes", page);
        result.data().put("runs", json);
        return result;
    }
}
