package io.ferry.bench.scenario;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.report.Charts;
import io.ferry.bench.transfer.LibtorrentFlow;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Study 3: does the scavenger yield? Ferry's uTP (and libtorrent's, as the seed study's system) on a
 * 100 Mbit/s bottleneck with a 150 ms drop-tail queue, base RTT 20 and 100 ms, in the shapes users
 * meet: TCP joining an established scavenger (its share afterwards and the time it takes to yield),
 * the scavenger joining established TCP, all starting together, a second scavenger joining the first
 * (Jain's index), and the scavenger alone (link use and queuing delay); each against reno, cubic and
 * bbr with 1 and 4 TCP flows. Every scenario runs on a fresh pair of namespaces and emulator.
 */
final class FairnessStudy implements Study {

    static final long RATE = 100_000_000;
    static final Duration QUEUE = Duration.ofMillis(150);

    private final FairnessSelection selection;

    FairnessStudy(FairnessSelection selection) {
        this.selection = selection;
    }

    @Override
    public String id() {
        return "fairness";
    }

    @Override
    public String title() {
        return "3. Does the scavenger yield? LEDBAT (Ferry, libtorrent) against reno, cubic and bbr on a 100 Mbit/s bottleneck";
    }

    @Override
    public StudyResult run(StudyContext ctx) throws Exception {
        StudyResult result = StudyResult.of(this);
        Duration lead = FairnessSelection.lead(ctx);
        Duration measured = FairnessSelection.measured(ctx);
        List<String> scavengers = new ArrayList<>(selection.scavengersOr(ctx));
        StringBuilder md = result.markdown();
        md.append(Units.f("Bottleneck: 100 Mbit/s each way, drop-tail queue of %d ms (%s) and no random loss unless a table's "
                        + "heading says otherwise, base RTT as in each table. "
                        + "Ferry = `utp://` with its defaults (controller `ledbat`) unless a controller is named; libtorrent = two "
                        + "Debian python3-libtorrent sessions, uTP only, one seeding to the other; TCP = Ferry's `tcp://` with "
                        + "`CONGESTION_CONTROL` set. First flows run %d s alone, then the others join and run %d s; figures cover "
                        + "the time after the join (after the first %d s when nothing joins). Rates are goodput sampled every %d ms; "
                        + "link use counts every IP byte the emulator carried; time to yield = from the TCP start to the end of the "
                        + "last second (two samples) in which the scavenger had more than %.0f %% of the delivered bytes (`never` "
                        + "if it still had at the end).%n%n",
                QUEUE.toMillis(), Units.decimal(LinkModel.queueFor(RATE, QUEUE)), lead.toSeconds(), measured.toSeconds(),
                lead.toSeconds(), FairnessRun.SAMPLE_MILLIS, 100 * FairnessRun.YIELDED_SHARE));
        if (!ctx.transports().installed("utp") || !ctx.transports().installed("tcp")) {
            md.append("Needs the utp and tcp transports; installed: ").append(ctx.transports().installedNames()).append('\n');
            result.data().put("status", "transport not installed");
            return result;
        }
        Optional<String> noLibtorrent = scavengers.contains("libtorrent") ? LibtorrentFlow.missing() : Optional.empty();
        if (noLibtorrent.isPresent()) {
            scavengers.remove("libtorrent");
            md.append("libtorrent rows skipped: ").append(noLibtorrent.get()).append(".\n\n");
            result.data().put("libtorrent", noLibtorrent.get());
        }
        List<Object> json = new ArrayList<>();
        result.data().put("rate_bits_per_second", RATE);
        result.data().put("queue_ms", QUEUE.toMillis());
        result.data().put("lead_seconds", lead.toSeconds());
        result.data().put("measured_seconds", measured.toSeconds());
        result.data().put("scenarios", json);
        try (LibtorrentFlow.Payload payload = scavengers.contains("libtorrent") ? LibtorrentFlow.prepare(scratch(), payloadSize(lead, measured)) : null) {
            for (double queueMs : selection.queuesMsOr()) {
                for (double loss : selection.lossRatesOr()) {
                    for (int rtt : selection.baseRttsOr(ctx)) {
                        boolean standard = loss == 0 && queueMs == FairnessSelection.DEFAULT_QUEUE_MS;
                        String path = standard ? "" : Units.f(", %s %% random loss each way, queue %s ms", Units.number(100 * loss),
                                Units.number(queueMs));
                        md.append(Units.f("#### Base RTT %d ms%s%n%n", rtt, path));
                        md.append("| scenario | scavenger Mbit/s | TCP Mbit/s | scavenger share | time to yield | link use | Jain | queue mean / max ms |\n"
                                + "|---|---|---|---|---|---|---|---|\n");
                        long queueBytes = Math.max(1_500, (long) (RATE / 8 * queueMs / 1000));
                        LinkModel link = new LinkModel(loss, RATE, queueBytes, Duration.ofMillis(rtt / 2), 3);
                        for (FairnessScenario s : scenarios(ctx, scavengers, rtt)) {
                            Map<String, Object> row = runOne(ctx, result, link, s, lead, measured, payload, standard ? "" : path);
                            row.put("loss_each_way", loss);
                            row.put("queue_ms", queueMs);
                            json.add(row);
                        }
                        md.append('\n');
                    }
                }
            }
        }
        return result;
    }

    private List<FairnessScenario> scenarios(StudyContext ctx, List<String> scavengers, int rtt) {
        List<FairnessScenario> out = new ArrayList<>();
        for (FairnessScenario.Kind kind : selection.kindsOr(ctx)) {
            if (!kind.hasTcp()) {
                for (String scav : scavengers) {
                    out.add(new FairnessScenario(kind, scav, null, 0, rtt));
                }
                continue;
            }
            for (String cc : selection.ccsOr(ctx)) {
                for (int n : selection.tcpFlowsOr(ctx)) {
                    for (String scav : scavengers) {
                        out.add(new FairnessScenario(kind, scav, cc, n, rtt));
                    }
                }
            }
        }
        return out;
    }

    private Map<String, Object> runOne(StudyContext ctx, StudyResult result, LinkModel link, FairnessScenario s, Duration lead,
                                       Duration measured, LibtorrentFlow.Payload payload, String path) throws Exception {
        FairnessRun.Outcome outcome;
        try (TestBed bed = TestBed.emulated(link)) {
            outcome = FairnessRun.run(bed, s, RATE, lead, measured, payload);
        } catch (Exception e) {
            String row = Units.f("| %s | failed: %s | | | | | | |%n", s.name(), e.getMessage());
            result.markdown().append(row);
            ctx.log().print("  fairness " + s.baseRttMs() + " ms" + path + " " + row);
            Map<String, Object> failed = new LinkedHashMap<>();
            failed.put("scenario", s.name());
            failed.put("base_rtt_ms", s.baseRttMs());
            failed.put("error", String.valueOf(e));
            return failed;
        }
        Map<String, Object> f = outcome.figures();
        String png = s.fileId() + (path.isEmpty() ? "" : "-" + path.replaceAll("[^A-Za-z0-9]+", "-").replaceAll("^-|-$", "")
                .toLowerCase()) + ".png";
        Map<String, List<double[]>> chart = new LinkedHashMap<>(outcome.series());
        chart.put("queuing delay (ms)", outcome.queueMs());
        Charts.line(ctx.out().resolve(png), s.name() + ", base RTT " + s.baseRttMs() + " ms" + path + ": Mbit/s per flow and queue (ms)",
                "seconds", "Mbit/s  |  ms", Charts.series(chart), false, false);
        result.charts().add(png);
        f.put("chart", png);
        String row = Units.f("| %s | %.1f | %s | %s | %s | %.0f %% | %s | %.0f / %.0f |%n", s.name(),
                (double) f.get("scavenger_mbit_per_s"),
                s.tcpFlows() == 0 ? "—" : Units.f("%.1f", (double) f.get("tcp_mbit_per_s")),
                s.tcpFlows() == 0 ? "—" : Units.f("%.0f %%", 100 * (double) f.get("scavenger_share")),
                yieldCell(f), 100 * (double) f.get("link_use"),
                s.kind() == FairnessScenario.Kind.LATECOMER || s.tcpFlows() > 0 ? Units.f("%.2f", (double) f.get("jain_index")) : "—",
                (double) f.get("queue_delay_ms_mean"), (double) f.get("queue_delay_ms_max"));
        result.markdown().append(row);
        ctx.log().print("  fairness " + s.baseRttMs() + " ms" + path + " " + row);
        return f;
    }

    private static String yieldCell(Map<String, Object> f) {
        Object t = f.get("time_to_yield_s");
        if (t == null) {
            return "—";
        }
        double v = (double) t;
        return Double.isNaN(v) ? "never" : Units.f("%.1f s", v);
    }

    /** Enough payload for the scavenger to send at the full link rate for the whole scenario. */
    private static long payloadSize(Duration lead, Duration measured) {
        return (lead.plusSeconds(5).plus(measured).toSeconds() * RATE / 8 + (1 << 22) - 1) & ~((1L << 22) - 1);
    }

    private static Path scratch() {
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
    }
}
