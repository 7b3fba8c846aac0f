package io.ferry.bench.scenario;

import io.ferry.bench.emulator.LinkDirection;
import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.report.Charts;
import io.ferry.bench.report.Stats;
import io.ferry.bench.transfer.StreamingFlow;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Study 3: one LEDBAT (uTP) flow against 1 and 4 TCP flows of a named congestion control through a
 * 100 Mbit/s bottleneck whose drop-tail queue holds more than 100 ms, plus LEDBAT alone and two LEDBAT
 * flows. All flows start together; shares, Jain's index and the queuing delay are taken over the last
 * two thirds of the run (after start-up). Throughput is sampled every 500 ms at the receivers.
 */
final class FairnessStudy implements Study {

    static final long RATE = 100_000_000;
    static final Duration ONE_WAY = Duration.ofMillis(10);
    static final Duration QUEUE = Duration.ofMillis(150);
    private static final long SAMPLE_MILLIS = 500;

    private record Scenario(String name, int ledbat, String cc, int tcp) {
    }

    @Override
    public String id() {
        return "fairness";
    }

    @Override
    public String title() {
        return "3. LEDBAT fairness against TCP (reno, cubic, bbr) on a 100 Mbit/s bottleneck";
    }

    @Override
    public StudyResult run(StudyContext ctx) throws Exception {
        StudyResult result = StudyResult.of(this);
        LinkModel link = new LinkModel(0, RATE, LinkModel.queueFor(RATE, QUEUE), ONE_WAY, 3);
        Duration duration = ctx.pick(Duration.ofSeconds(6), Duration.ofSeconds(30), Duration.ofSeconds(120));
        List<Scenario> scenarios = new ArrayList<>();
        scenarios.add(new Scenario("ledbat alone", 1, null, 0));
        if (ctx.profile() != Profile.QUICK) {
            scenarios.add(new Scenario("2 ledbat", 2, null, 0));
        }
        for (String cc : ctx.pick(List.of("cubic"), List.of("reno", "cubic", "bbr"), List.of("reno", "cubic", "bbr"))) {
            scenarios.add(new Scenario("ledbat + 1 " + cc, 1, cc, 1));
            if (ctx.profile() != Profile.QUICK) {
                scenarios.add(new Scenario("ledbat + 4 " + cc, 1, cc, 4));
            }
        }
        result.markdown().append(Units.f("Bottleneck: %s each way (base RTT %d ms; the queue holds %d ms). Each scenario runs %d s; "
                        + "figures cover the last two thirds. LEDBAT = Ferry's `utp://` with defaults (target 100 ms); TCP = Ferry's `tcp://` "
                        + "with `CONGESTION_CONTROL` set explicitly. Queuing delay = the emulator's own queue, sampled every %d ms.%n%n",
                link.describe(), ONE_WAY.toMillis() * 2, QUEUE.toMillis(), duration.toSeconds(), SAMPLE_MILLIS));
        if (!ctx.transports().installed("utp") || !ctx.transports().installed("tcp")) {
            result.markdown().append("Needs the utp and tcp transports; installed: ").append(ctx.transports().installedNames()).append('\n');
            result.data().put("status", "transport not installed");
            return result;
        }
        result.markdown().append("| scenario | LEDBAT Mbit/s | TCP Mbit/s (total) | LEDBAT share | link use | Jain's index | queuing delay mean / max ms |\n"
                + "|---|---|---|---|---|---|---|\n");
        List<Object> json = new ArrayList<>();
        for (Scenario s : scenarios) {
            Map<String, Object> r = runScenario(ctx, link, s, duration, result);
            json.add(r);
        }
        result.data().put("link", link.describe());
        result.data().put("duration_seconds", duration.toSeconds());
        result.data().put("scenarios", json);
        return result;
    }

    private Map<String, Object> runScenario(StudyContext ctx, LinkModel link, Scenario s, Duration duration, StudyResult result) throws Exception {
        List<StreamingFlow> flows = new ArrayList<>();
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        List<Double> queueDelays = new ArrayList<>();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("scenario", s.name());
        try (TestBed bed = TestBed.emulated(link)) {
            for (int i = 1; i <= s.ledbat(); i++) {
                flows.add(StreamingFlow.start("ledbat-" + i, "utp", ChannelOptions.empty(), bed.client(), bed.server()));
            }
            for (int i = 1; i <= s.tcp(); i++) {
                flows.add(StreamingFlow.start("tcp-" + s.cc() + "-" + i, "tcp",
                        ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, s.cc()).build(), bed.client(), bed.server()));
            }
            LinkDirection forward = bed.emulator().orElseThrow().forward();
            long[] last = new long[flows.size()];
            long start = System.nanoTime();
            long samples = duration.toMillis() / SAMPLE_MILLIS;
            for (long k = 1; k <= samples; k++) {
                long due = start + k * SAMPLE_MILLIS * 1_000_000;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                double t = (System.nanoTime() - start) / 1e9;
                queueDelays.add(forward.currentQueueDelayNanos(System.nanoTime()) / 1e6);
                for (int i = 0; i < flows.size(); i++) {
                    long now = flows.get(i).receivedBytes();
                    series.computeIfAbsent(flows.get(i).label(), x -> new ArrayList<>())
                            .add(new double[] {t, (now - last[i]) * 8 / (SAMPLE_MILLIS / 1e3) / 1e6});
                    last[i] = now;
                }
            }
            bed.emulator().orElseThrow().checkHealthy();
        } finally {
            for (StreamingFlow f : flows) {
                f.close();
            }
        }
        int from = (int) (queueDelays.size() / 3);
        double ledbat = 0;
        double tcp = 0;
        List<Double> perFlow = new ArrayList<>();
        Map<String, Object> flowsJson = new LinkedHashMap<>();
        for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
            List<double[]> pts = e.getValue();
            double mean = pts.subList(from, pts.size()).stream().mapToDouble(p -> p[1]).average().orElse(0);
            perFlow.add(mean);
            if (e.getKey().startsWith("ledbat")) {
                ledbat += mean;
            } else {
                tcp += mean;
            }
            flowsJson.put(e.getKey(), Map.of("mean_mbit_per_s", mean,
                    "series_mbit_per_s", pts.stream().map(p -> p[1]).toList()));
        }
        double total = ledbat + tcp;
        double jain = Stats.jain(perFlow.stream().mapToDouble(Double::doubleValue).toArray());
        List<Double> steadyQueue = queueDelays.subList(from, queueDelays.size());
        double qMean = steadyQueue.stream().mapToDouble(Double::doubleValue).average().orElse(0);
        double qMax = Stats.max(steadyQueue);
        out.put("ledbat_mbit_per_s", ledbat);
        out.put("tcp_mbit_per_s", tcp);
        out.put("ledbat_share", total == 0 ? 0 : ledbat / total);
        out.put("link_utilisation", total * 1e6 / RATE);
        out.put("jain_index", jain);
        out.put("queue_delay_ms_mean", qMean);
        out.put("queue_delay_ms_max", qMax);
        out.put("queue_delay_ms_series", queueDelays);
        out.put("flows", flowsJson);
        String png = "fairness-" + s.name().replaceAll("[^a-z0-9]+", "-") + ".png";
        Map<String, List<double[]>> chart = new LinkedHashMap<>(series);
        List<double[]> queue = new ArrayList<>();
        for (int i = 0; i < queueDelays.size(); i++) {
            queue.add(new double[] {(i + 1) * SAMPLE_MILLIS / 1e3, queueDelays.get(i)});
        }
        chart.put("queuing delay (ms)", queue);
        Charts.line(ctx.out().resolve(png), s.name() + ": throughput per flow (Mbit/s) and queuing delay (ms)", "seconds",
                "Mbit/s  |  ms", Charts.series(chart), false, false);
        result.charts().add(png);
        String row = Units.f("| %s | %.1f | %s | %.0f%% | %.0f%% | %.2f | %.0f / %.0f |%n", s.name(), ledbat,
                s.tcp() == 0 ? "—" : Units.f("%.1f", tcp), total == 0 ? 0 : 100 * ledbat / total, 100 * total * 1e6 / RATE, jain, qMean, qMax);
        result.markdown().append(row);
        ctx.log().print("  fairness " + row);
        return out;
    }
}
