package io.ferry.bench.scenario;

import io.ferry.bench.emulator.LinkDirection;
import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.emulator.LinkStatistics;
import io.ferry.bench.report.Charts;
import io.ferry.bench.report.Stats;
import io.ferry.bench.transfer.StreamingFlow;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.TransportStatistics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Validates Ferry's user-space congestion controls against the kernel's TCP ones where the kernel has the
 * same algorithm (reno with Ferry's newreno, cubic, bbr): on one emulated link, 100 Mbit/s and 40 ms RTT,
 * clean or with 1 % random loss per IP packet each way, with a queue of one BDP or a tenth of one. Each
 * alone (Ferry's goodput over the kernel's: within 0.85–1.15), then both started together (Jain's index
 * of their goodputs over the shared period: at least 0.9). Every run is on fresh namespaces; flows are
 * bulk streams sampled every {@link #SAMPLE_MILLIS} ms and judged after a warm-up that excludes the
 * start-up.
 */
final class CcValidationStudy implements Study {

    static final long RATE = 100_000_000;
    static final Duration ONE_WAY = Duration.ofMillis(20);
    /** Bandwidth-delay product of the path: 100 Mbit/s × 40 ms = 500 kB. */
    static final long BDP = RATE / 8 * 2 * ONE_WAY.toMillis() / 1000;
    static final long SAMPLE_MILLIS = 500;
    static final double RATIO_LOW = 0.85;
    static final double RATIO_HIGH = 1.15;
    static final double JAIN_MIN = 0.9;

    /** The kernel's algorithm and Ferry's that implements the same. */
    static final Map<String, String> FERRY_OF = Map.of("reno", "newreno", "cubic", "cubic", "bbr", "bbr");

    /** The link conditions. */
    enum Condition {
        CLEAN_DEEP("clean-deep", 0, 1.0),
        CLEAN_SHALLOW("clean-shallow", 0, 0.1),
        LOSS_DEEP("loss-deep", 0.01, 1.0),
        LOSS_SHALLOW("loss-shallow", 0.01, 0.1);

        final String id;
        final double loss;
        final double queueBdp;

        Condition(String id, double loss, double queueBdp) {
            this.id = id;
            this.loss = loss;
            this.queueBdp = queueBdp;
        }

        long queueBytes() {
            return (long) (BDP * queueBdp);
        }

        String describe() {
            return (loss == 0 ? "clean" : Units.f("%s %% loss", Units.number(100 * loss))) + Units.f(", queue %s BDP (%s)",
                    Units.number(queueBdp), Units.decimal(queueBytes()));
        }

        static Condition byId(String id) {
            return Arrays.stream(values()).filter(c -> c.id.equals(id)).findFirst().orElseThrow(() -> new IllegalArgumentException(
                    "unknown validation condition '" + id + "'; choose from " + Arrays.stream(values()).map(c -> c.id).toList()));
        }
    }

    /** What {@code --kernel-pacing} sets: a cap far above the link, which turns the kernel's internal pacing on. */
    static final long KERNEL_PACING_CAP = 10 * RATE / 8;

    private final List<String> pairs;
    private final List<Condition> conditions;
    private final boolean kernelPacing;

    /**
     * @param kernelPacing whether the kernel's flows get {@code PACING_RATE} (Linux's {@code SO_MAX_PACING_RATE}) of
     *                     ten times the link rate: any value but "unlimited" switches on TCP's internal pacing at
     *                     the kernel's own rate (2× cwnd/srtt in slow start, 1.2× after), which reno and cubic do
     *                     not otherwise use without the fq qdisc (BBR asks for it itself)
     */
    CcValidationStudy(List<String> pairs, List<String> conditions, boolean kernelPacing) {
        this.kernelPacing = kernelPacing;
        for (String p : pairs) {
            if (!FERRY_OF.containsKey(p)) {
                throw new IllegalArgumentException("unknown kernel algorithm '" + p + "' in --cc-pairs; choose from reno, cubic, bbr");
            }
        }
        this.pairs = List.copyOf(pairs);
        this.conditions = conditions.stream().map(Condition::byId).toList();
    }

    @Override
    public String id() {
        return "ccvalidation";
    }

    @Override
    public String title() {
        return "5c. Ferry's user-space reno, cubic and bbr against the kernel's, alone and together";
    }

    @Override
    public StudyResult run(StudyContext ctx) throws Exception {
        StudyResult result = StudyResult.of(this);
        List<String> kernelCcs = pairs.isEmpty() ? ctx.pick(List.of("cubic"), List.of("reno", "cubic", "bbr"), List.of("reno", "cubic", "bbr")) : pairs;
        List<Condition> conds = conditions.isEmpty() ? ctx.pick(List.of(Condition.CLEAN_DEEP), List.of(Condition.values()),
                List.of(Condition.values())) : conditions;
        Duration alone = ctx.pick(Duration.ofSeconds(6), Duration.ofSeconds(18), Duration.ofSeconds(40));
        Duration together = ctx.pick(Duration.ofSeconds(8), Duration.ofSeconds(22), Duration.ofSeconds(60));
        Duration warmup = ctx.pick(Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(10));
        int reps = ctx.repetitionsOr(1);
        StringBuilder md = result.markdown();
        md.append(Units.f("Link: %s each way, RTT %d ms, BDP %s; conditions: clean or %s random loss per IP packet each way, "
                        + "drop-tail queue of 1 BDP (deep) or 0.1 BDP (shallow). Kernel = Ferry's `tcp://` with `CONGESTION_CONTROL` "
                        + "(the kernel's algorithm); Ferry = `utp://` with its user-space controller (reno ↔ `newreno`). One bulk "
                        + "stream alone for %d s, then both together for %d s (started together: the kernel's connects, then "
                        + "Ferry's right after it, one handshake apart); goodput sampled every %d ms and averaged after a %d s "
                        + "warm-up; each run on fresh namespaces; %d run(s) per cell (median). Bounds: Ferry alone / kernel alone "
                        + "in %.2f–%.2f; Jain's index together ≥ %.1f.%s%n%n",
                Units.f("%d Mbit/s", RATE / 1_000_000), 2 * ONE_WAY.toMillis(), Units.decimal(BDP), "1 %", alone.toSeconds(),
                together.toSeconds(), SAMPLE_MILLIS, warmup.toSeconds(), reps, RATIO_LOW, RATIO_HIGH, JAIN_MIN,
                kernelPacing ? " **Kernel paced** (`--kernel-pacing`): the kernel's flows have `PACING_RATE` = 10× the link, which "
                        + "switches on Linux's internal TCP pacing." : ""));
        List<String> missingTransports = List.of("tcp", "utp").stream().filter(t -> !ctx.transports().installed(t)).toList();
        if (!missingTransports.isEmpty()) {
            md.append("Not run: transport(s) not installed: ").append(missingTransports).append('\n');
            result.data().put("status", "transport not installed: " + missingTransports);
            return result;
        }
        md.append("| condition | kernel / Ferry | kernel alone Mbit/s | Ferry alone Mbit/s | ratio | together: kernel / Ferry Mbit/s | Jain | "
                + "meets bounds |\n|---|---|---|---|---|---|---|---|\n");
        List<Object> json = new ArrayList<>();
        Map<String, List<Double>> ratioChart = new LinkedHashMap<>();
        Map<String, List<Double>> jainChart = new LinkedHashMap<>();
        List<String> categories = conds.stream().map(c -> c.id).toList();
        for (Condition c : conds) {
            LinkModel link = new LinkModel(c.loss, RATE, c.queueBytes(), ONE_WAY, 7);
            for (String kcc : kernelCcs) {
                CcSpec kernel = new CcSpec("tcp", kcc);
                CcSpec ferry = new CcSpec("utp", FERRY_OF.get(kcc));
                String pair = kcc + (kernelPacing ? " paced" : "") + " / " + ferry.cc();
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("condition", c.id);
                row.put("loss_each_way", c.loss);
                row.put("queue_bytes", c.queueBytes());
                row.put("kernel", kernel.label());
                row.put("kernel_paced", kernelPacing);
                row.put("ferry", ferry.label());
                Optional<String> missing = kernel.missing(ctx.transports()).or(() -> ferry.missing(ctx.transports()));
                if (missing.isPresent()) {
                    md.append(Units.f("| %s | %s | not run: %s | | | | | |%n", c.id, pair, missing.get()));
                    row.put("not_run", missing.get());
                    json.add(row);
                    continue;
                }
                try {
                    List<Run> kernelRuns = new ArrayList<>();
                    List<Run> ferryRuns = new ArrayList<>();
                    List<Run> togetherRuns = new ArrayList<>();
                    for (int r = 0; r < reps; r++) {
                        kernelRuns.add(measure(link.withSeed(7 + 10L * r), List.of(kernel), alone, warmup, kernelPacing));
                        ferryRuns.add(measure(link.withSeed(7 + 10L * r), List.of(ferry), alone, warmup, kernelPacing));
                        togetherRuns.add(measure(link.withSeed(7 + 10L * r), List.of(kernel, ferry), together, warmup, kernelPacing));
                    }
                    double k = Stats.median(kernelRuns.stream().map(x -> x.mean(0)).toList());
                    double f = Stats.median(ferryRuns.stream().map(x -> x.mean(0)).toList());
                    double ratio = f / k;
                    double jain = Stats.median(togetherRuns.stream().map(Run::jain).toList());
                    Run shown = togetherRuns.get(togetherRuns.size() / 2);
                    boolean ratioOk = ratio >= RATIO_LOW && ratio <= RATIO_HIGH;
                    boolean jainOk = jain >= JAIN_MIN;
                    String verdict = ratioOk && jainOk ? "yes" : (ratioOk ? "" : "ratio no") + (!ratioOk && !jainOk ? ", " : "")
                            + (jainOk ? "" : "Jain no");
                    String line = Units.f("| %s | %s | %.1f | %.1f | %.3f | %.1f / %.1f | %.3f | %s |%n", c.id, pair, k, f, ratio,
                            shown.mean(0), shown.mean(1), jain, verdict);
                    md.append(line);
                    ctx.log().print("  ccvalidation " + line);
                    row.put("kernel_alone_mbit_per_s", k);
                    row.put("ferry_alone_mbit_per_s", f);
                    row.put("ratio", ratio);
                    row.put("jain_index", jain);
                    row.put("ratio_within_bounds", ratioOk);
                    row.put("jain_within_bound", jainOk);
                    row.put("kernel_alone", kernelRuns.stream().map(Run::json).toList());
                    row.put("ferry_alone", ferryRuns.stream().map(Run::json).toList());
                    row.put("together", togetherRuns.stream().map(Run::json).toList());
                    ratioChart.computeIfAbsent(pair, x -> new ArrayList<>()).add(ratio);
                    jainChart.computeIfAbsent(pair, x -> new ArrayList<>()).add(jain);
                    String png = Units.f("ccvalidation-%s-%s.png", c.id, kcc);
                    Map<String, List<double[]>> series = new LinkedHashMap<>();
                    series.put("kernel " + kcc + " alone", kernelRuns.get(kernelRuns.size() / 2).series.get(0));
                    series.put("Ferry " + ferry.cc() + " alone", ferryRuns.get(ferryRuns.size() / 2).series.get(0));
                    series.put("kernel " + kcc + " together", shown.series.get(0));
                    series.put("Ferry " + ferry.cc() + " together", shown.series.get(1));
                    Charts.line(ctx.out().resolve(png), Units.f("%s, %s: Mbit/s per flow", pair, c.describe()), "seconds", "Mbit/s",
                            Charts.series(series), false, false);
                    result.charts().add(png);
                    row.put("chart", png);
                } catch (Exception e) {
                    String line = Units.f("| %s | %s | failed: %s | | | | | |%n", c.id, pair, e.getMessage());
                    md.append(line);
                    ctx.log().print("  ccvalidation " + line);
                    row.put("error", String.valueOf(e));
                    ratioChart.computeIfAbsent(pair, x -> new ArrayList<>()).add(Double.NaN);
                    jainChart.computeIfAbsent(pair, x -> new ArrayList<>()).add(Double.NaN);
                }
                json.add(row);
            }
        }
        md.append('\n');
        for (Map<String, List<Double>> chart : List.of(ratioChart, jainChart)) {
            for (List<Double> values : chart.values()) {
                while (values.size() < categories.size()) {
                    values.add(Double.NaN);
                }
            }
        }
        Charts.bars(ctx.out().resolve("ccvalidation-ratio.png"), "Ferry alone / kernel alone (bounds 0.85–1.15)", "condition",
                "goodput ratio", categories, ratioChart);
        Charts.bars(ctx.out().resolve("ccvalidation-jain.png"), "Jain's index, kernel and Ferry together (bound 0.9)", "condition",
                "Jain's index", categories, jainChart);
        result.charts().add(0, "ccvalidation-jain.png");
        result.charts().add(0, "ccvalidation-ratio.png");
        result.data().put("rate_bits_per_second", RATE);
        result.data().put("rtt_ms", 2 * ONE_WAY.toMillis());
        result.data().put("bdp_bytes", BDP);
        result.data().put("kernel_paced", kernelPacing);
        result.data().put("alone_seconds", alone.toSeconds());
        result.data().put("together_seconds", together.toSeconds());
        result.data().put("warmup_seconds", warmup.toSeconds());
        result.data().put("bounds", Map.of("ratio_low", RATIO_LOW, "ratio_high", RATIO_HIGH, "jain_min", JAIN_MIN));
        result.data().put("rows", json);
        return result;
    }

    /** One run: per flow, goodput samples (seconds, Mbit/s), and what the sender and the link counted. */
    private record Run(List<String> labels, List<List<double[]>> series, double warmupSeconds, List<Map<String, Object>> senders,
                       LinkStatistics link, double queueMsMean) {

        double mean(int flow) {
            return series.get(flow).stream().filter(p -> p[0] > warmupSeconds).mapToDouble(p -> p[1]).average().orElse(0);
        }

        double jain() {
            double[] means = new double[series.size()];
            for (int i = 0; i < means.length; i++) {
                means[i] = mean(i);
            }
            return Stats.jain(means);
        }

        Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            for (int i = 0; i < labels.size(); i++) {
                Map<String, Object> flow = new LinkedHashMap<>(senders.get(i));
                flow.put("mean_mbit_per_s", mean(i));
                flow.put("series", series.get(i).stream().map(p -> List.of(p[0], p[1])).toList());
                m.put(labels.get(i), flow);
            }
            m.put("link_random_losses", link.lost());
            m.put("link_queue_drops", link.queueDrops());
            m.put("link_packets_accepted", link.accepted());
            m.put("queue_delay_ms_mean", queueMsMean);
            return m;
        }
    }

    private static Run measure(LinkModel link, List<CcSpec> specs, Duration length, Duration warmup, boolean kernelPacing)
            throws Exception {
        try (TestBed bed = TestBed.emulated(link)) {
            List<StreamingFlow> flows = new ArrayList<>();
            try {
                for (CcSpec s : specs) {
                    ChannelOptions options = kernelPacing && s.transport().equals("tcp")
                            ? s.options().toBuilder().set(FerryChannelOption.PACING_RATE, KERNEL_PACING_CAP).build() : s.options();
                    flows.add(StreamingFlow.start(s.label(), s.transport(), options, bed.client(), bed.server()));
                }
                LinkDirection forward = bed.emulator().orElseThrow().forward();
                List<List<double[]>> series = new ArrayList<>();
                long[] last = new long[flows.size()];
                for (int i = 0; i < flows.size(); i++) {
                    series.add(new ArrayList<>());
                    last[i] = flows.get(i).receivedBytes();
                }
                List<Double> queueMs = new ArrayList<>();
                long start = System.nanoTime();
                for (long k = 1; k * SAMPLE_MILLIS <= length.toMillis(); k++) {
                    long wait = start + k * SAMPLE_MILLIS * 1_000_000 - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    double t = (System.nanoTime() - start) / 1e9;
                    for (int i = 0; i < flows.size(); i++) {
                        long bytes = flows.get(i).receivedBytes();
                        series.get(i).add(new double[] {t, (bytes - last[i]) * 8 / (SAMPLE_MILLIS / 1e3) / 1e6});
                        last[i] = bytes;
                    }
                    if (t > warmup.toSeconds()) {
                        queueMs.add(forward.currentQueueDelayNanos(System.nanoTime()) / 1e6);
                    }
                }
                List<Map<String, Object>> senders = flows.stream().map(CcValidationStudy::sender).collect(Collectors.toList());
                bed.emulator().orElseThrow().checkHealthy();
                return new Run(specs.stream().map(CcSpec::label).toList(), series, warmup.toSeconds(), senders, forward.statistics(),
                        queueMs.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN));
            } finally {
                for (StreamingFlow f : flows) {
                    f.close();
                }
            }
        }
    }

    /** The sender's own counters at the end of the run, where the transport reports them. */
    private static Map<String, Object> sender(StreamingFlow flow) {
        Map<String, Object> m = new LinkedHashMap<>();
        Optional<TransportStatistics> stats = flow.senderStatistics();
        if (stats.isEmpty()) {
            m.put("sender", "closed before the end");
            return m;
        }
        TransportStatistics s = stats.get();
        m.put("bytes_sent", s.bytesSent());
        s.retransmissions().ifPresent(v -> m.put("retransmissions", v));
        s.packetsLost().ifPresent(v -> m.put("packets_lost", v));
        s.smoothedRtt().ifPresent(v -> m.put("srtt_ms", v.toNanos() / 1e6));
        s.congestionWindowBytes().ifPresent(v -> m.put("cwnd_bytes", v));
        return m;
    }
}
