package io.ferry.bench.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.transfer.PerfRuns;
import io.ferry.bench.transfer.ReferenceTransfers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code ferry perf} over the studies' paths, as a user runs it between two hosts (the jar as processes in the
 * client's and the server's namespaces, at its defaults), beside iperf3 on the same path in the same run:
 * its tcp goodput against iperf3's each way, its fairness figures, the whole run's time (issue 59).
 */
final class PerfPathsStudy implements Study {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** iperf3's test per direction: as long as ferry perf's tcp test each way at its defaults (10 s split in two). */
    private static final long IPERF_SECONDS = 5;

    private record PathRow(String name, LinkModel link) {
    }

    @Override
    public String id() {
        return "perf";
    }

    @Override
    public String title() {
        return "ferry perf on the studies' paths, beside iperf3";
    }

    @Override
    public Optional<String> cannotRun() {
        Optional<String> root = Study.super.cannotRun();
        if (root.isPresent()) {
            return root;
        }
        return ReferenceTransfers.ferryMissing().or(ReferenceTransfers::iperf3Missing);
    }

    static List<PathRow> paths(StudyContext ctx) {
        List<PathRow> two = List.of(
                new PathRow("200 Mbit/s, 40 ms RTT, 150 ms queue", new LinkModel(0, 200_000_000,
                        LinkModel.queueFor(200_000_000, Duration.ofMillis(150)), Duration.ofMillis(20), 59)),
                new PathRow("20 Mbit/s, 100 ms RTT, 1 % loss, 150 ms queue", new LinkModel(0.01, 20_000_000,
                        LinkModel.queueFor(20_000_000, Duration.ofMillis(150)), Duration.ofMillis(50), 60)));
        List<PathRow> all = new ArrayList<>(two);
        all.add(new PathRow("200 Mbit/s, 150 ms RTT, 1 BDP queue (buffer sweep)", new LinkModel(0, 200_000_000,
                LinkModel.queueFor(200_000_000, Duration.ofMillis(150)), Duration.ofMillis(75), 61)));
        all.add(new PathRow("25 % loss, 50 ms RTT (file matrix)", new LinkModel(0.25, 0, 0, Duration.ofMillis(25), 62)));
        all.add(new PathRow("100 Mbit/s, 100 ms RTT, 150 ms queue (fairness)", new LinkModel(0, 100_000_000,
                LinkModel.queueFor(100_000_000, Duration.ofMillis(150)), Duration.ofMillis(50), 63)));
        all.add(new PathRow("100 Mbit/s, 10 ms RTT, 1 % loss, 64 kB queue (UDP loss)", new LinkModel(0.01, 100_000_000, 64_000,
                Duration.ofMillis(5), 64)));
        all.add(new PathRow("20 Mbit/s, 100 ms RTT, 300 ms queue (TCP parallel)", new LinkModel(0, 20_000_000,
                LinkModel.queueFor(20_000_000, Duration.ofMillis(300)), Duration.ofMillis(50), 65)));
        return ctx.pick(two, all, all);
    }

    @Override
    public StudyResult run(StudyContext ctx) throws Exception {
        StudyResult result = StudyResult.of(this);
        result.markdown().append("Each path: `ferry perf --server --once` in the server's namespace, `ferry perf SERVER --json` at its "
                + "defaults in the client's (every transport, 5 s each way, then the scavenger's tests), then `iperf3 -t 5` and "
                + "`iperf3 -t 5 -R` on the same path. LEDBAT's share is from 2 s after a TCP flow (the host's default, cubic) "
                + "joined; harm is TCP's rate beside it against TCP alone.\n\n");
        result.markdown().append("| path | run s | exit | tcp up / iperf3 Mbit/s | ratio | tcp down / iperf3 | ratio | fastest up | fastest down "
                + "| LEDBAT share | harm | idle use | added delay ms |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        List<Object> rows = new ArrayList<>();
        for (PathRow p : paths(ctx)) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("path", p.name());
            row.put("link", p.link().describe());
            try (TestBed bed = TestBed.emulated(p.link())) {
                Path chart = ctx.out().resolve("perf-" + rows.size() + ".svg");
                PerfRuns.PerfRun run = PerfRuns.ferryPerf(bed.clientNamespace(), bed.serverNamespace(), bed.serverAddress(), chart,
                        Duration.ofMinutes(5));
                double iperfUp = PerfRuns.iperf3Mbps(bed.clientNamespace(), bed.serverNamespace(), bed.serverAddress(), IPERF_SECONDS, false, null);
                double iperfDown = PerfRuns.iperf3Mbps(bed.clientNamespace(), bed.serverNamespace(), bed.serverAddress(), IPERF_SECONDS, true, null);
                row.put("exit", run.exitCode());
                row.put("wall_s", run.wallSeconds());
                row.put("iperf3_up_mbps", iperfUp);
                row.put("iperf3_down_mbps", iperfDown);
                if (run.json() != null) {
                    Files.writeString(ctx.out().resolve("perf-" + rows.size() + ".json"), run.json());
                    JsonNode report = JSON.readTree(run.json());
                    double up = goodput(report, "tcp", "up");
                    double down = goodput(report, "tcp", "down");
                    JsonNode f = report.get("fairness");
                    double share = f.isNull() ? Double.NaN : f.get("tcp_joins").get("ledbat_share").asDouble();
                    double harm = f.isNull() ? Double.NaN : f.get("tcp_joins").get("harm").asDouble();
                    row.put("tcp_up_mbps", up);
                    row.put("tcp_down_mbps", down);
                    row.put("ledbat_share", share);
                    row.put("harm", harm);
                    row.put("report", report);
                    result.markdown().append(Units.f("| %s | %.0f | %d | %.1f / %.1f | %.2f | %.1f / %.1f | %.2f | %s | %s | %.3f | %.2f | %.2f | %.1f |%n",
                            p.name(), run.wallSeconds(), run.exitCode(), up, iperfUp, up / iperfUp, down, iperfDown, down / iperfDown,
                            fastest(report, "up"), fastest(report, "down"), share, harm,
                            f.isNull() ? Double.NaN : f.get("idle_use").asDouble(), f.isNull() ? Double.NaN : f.get("added_delay_ms").asDouble()));
                } else {
                    result.markdown().append(Units.f("| %s | %.0f | %d | no report: %s |%n", p.name(), run.wallSeconds(), run.exitCode(),
                            run.output().lines().reduce((a, b) -> b).orElse("")));
                }
                ctx.log().print("  perf " + p.name() + ": exit " + run.exitCode() + ", " + Units.f("%.0f s", run.wallSeconds()));
            }
            rows.add(row);
        }
        result.data().put("rows", rows);
        return result;
    }

    private static double goodput(JsonNode report, String transport, String direction) {
        for (JsonNode t : report.get("tests")) {
            if (t.get("transport").asText().equals(transport) && t.get("direction").asText().equals(direction)) {
                return t.get("goodput_mbps").isNull() ? Double.NaN : t.get("goodput_mbps").asDouble();
            }
        }
        return Double.NaN;
    }

    private static String fastest(JsonNode report, String direction) {
        String best = "-";
        double rate = -1;
        for (JsonNode t : report.get("tests")) {
            if (t.get("direction").asText().equals(direction) && !t.get("goodput_mbps").isNull() && t.get("goodput_mbps").asDouble() > rate) {
                rate = t.get("goodput_mbps").asDouble();
                best = Units.f("%s %.1f", t.get("transport").asText(), rate);
            }
        }
        return best;
    }
}
