package io.ferry.bench.scenario;

import io.ferry.bench.emulator.LinkDirection;
import io.ferry.bench.report.Stats;
import io.ferry.bench.transfer.LibtorrentFlow;
import io.ferry.bench.transfer.MeasuredFlow;
import io.ferry.bench.transfer.StreamingFlow;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Runs one {@link FairnessScenario} on a fresh emulated bottleneck: starts the first flows, lets them
 * run for the lead time, starts the joining flows (sampling goes on meanwhile), and samples every
 * flow's delivered bytes, the emulator's queue and the bytes it carried every {@link #SAMPLE_MILLIS}.
 * The measured window starts when the joining flows were connected (or after the lead time when
 * nothing joins) and lasts to the end.
 */
final class FairnessRun {

    static final long SAMPLE_MILLIS = 500;
    /** A scavenger has yielded while its share of what the bottleneck delivers stays at or below this. */
    static final double YIELDED_SHARE = 0.10;
    /** Samples over which the scavenger's share is judged for the time to yield. */
    static final int YIELD_WINDOW_SAMPLES = 2;
    /** How long starting the joining flows may take before the run gives up. */
    private static final long JOIN_GRACE_MILLIS = 60_000;

    private final FairnessScenario scenario;
    private final long rateBitsPerSecond;
    private final List<MeasuredFlow> flows = new CopyOnWriteArrayList<>();
    private final Map<String, List<double[]>> series = new LinkedHashMap<>();
    private final List<double[]> queue = new ArrayList<>();
    private final List<double[]> wire = new ArrayList<>();
    private volatile double joinedAt = -1;

    private FairnessRun(FairnessScenario scenario, long rateBitsPerSecond) {
        this.scenario = scenario;
        this.rateBitsPerSecond = rateBitsPerSecond;
    }

    /** The outcome: figures for the report and the time series for the chart. */
    record Outcome(Map<String, Object> figures, Map<String, List<double[]>> series, List<double[]> queueMs) {
    }

    static Outcome run(TestBed bed, FairnessScenario s, long rateBitsPerSecond, Duration lead, Duration measured,
                       LibtorrentFlow.Payload payload) throws Exception {
        FairnessRun run = new FairnessRun(s, rateBitsPerSecond);
        try {
            return run.execute(bed, lead, measured, payload);
        } finally {
            for (MeasuredFlow f : run.flows) {
                f.close();
            }
        }
    }

    private Outcome execute(TestBed bed, Duration lead, Duration measured, LibtorrentFlow.Payload payload) throws Exception {
        List<FlowStart> first = new ArrayList<>();
        List<FlowStart> joining = new ArrayList<>();
        switch (scenario.kind()) {
            case ALONE -> first.add(scavenger("1"));
            case TCP_JOINS -> {
                first.add(scavenger("1"));
                joining.addAll(tcp());
            }
            case SCAVENGER_JOINS -> {
                first.addAll(tcp());
                joining.add(scavenger("1"));
            }
            case TOGETHER -> {
                first.add(scavenger("1"));
                first.addAll(tcp());
            }
            case LATECOMER -> {
                first.add(scavenger("1"));
                joining.add(scavenger("2"));
            }
        }
        for (FlowStart f : first) {
            flows.add(f.start(bed, payload));
        }
        LinkDirection forward = bed.emulator().orElseThrow().forward();
        long start = System.nanoTime();
        long leadMillis = lead.toMillis();
        long total = leadMillis + measured.toMillis();
        CompletableFuture<Void> join = null;
        Map<MeasuredFlow, Long> last = new LinkedHashMap<>();
        long lastWire = forward.statistics().bytesAccepted();
        double lastQueueMs = 0;
        long hardStop = total + JOIN_GRACE_MILLIS;
        for (long k = 1; k * SAMPLE_MILLIS <= hardStop; k++) {
            long due = start + k * SAMPLE_MILLIS * 1_000_000;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            double t = (System.nanoTime() - start) / 1e9;
            if (join == null && !joining.isEmpty() && t * 1000 >= leadMillis) {
                join = CompletableFuture.runAsync(() -> {
                    try {
                        for (FlowStart f : joining) {
                            flows.add(f.start(bed, payload));
                        }
                        joinedAt = (System.nanoTime() - start) / 1e9;
                    } catch (Exception e) {
                        throw new IllegalStateException("could not start the joining flows: " + e.getMessage(), e);
                    }
                });
            }
            long now = System.nanoTime();
            double queueMs = forward.currentQueueDelayNanos(now) / 1e6;
            queue.add(new double[] {t, queueMs});
            // what left the bottleneck: what entered it, less what the queue grew by
            long wireNow = forward.statistics().bytesAccepted();
            double departedBits = (wireNow - lastWire) * 8 - (queueMs - lastQueueMs) / 1e3 * rateBitsPerSecond;
            wire.add(new double[] {t, departedBits / (SAMPLE_MILLIS / 1e3) / 1e6});
            lastWire = wireNow;
            lastQueueMs = queueMs;
            for (MeasuredFlow f : flows) {
                long bytes = f.receivedBytes();
                long before = last.getOrDefault(f, 0L);
                last.put(f, bytes);
                series.computeIfAbsent(f.label(), x -> new ArrayList<>())
                        .add(new double[] {t, (bytes - before) * 8 / (SAMPLE_MILLIS / 1e3) / 1e6});
            }
            boolean done = joining.isEmpty()
                    ? t * 1000 >= total
                    : joinedAt >= 0 ? t - joinedAt >= measured.toMillis() / 1e3 : join != null && join.isDone();
            if (done) {
                break;
            }
        }
        if (join != null) {
            join.join();
        }
        if (!joining.isEmpty() && joinedAt < 0) {
            throw new IllegalStateException("the joining flows did not start within " + JOIN_GRACE_MILLIS / 1000 + " s");
        }
        bed.emulator().orElseThrow().checkHealthy();
        double from = joining.isEmpty() ? leadMillis / 1e3 : joinedAt;
        return new Outcome(figures(from), series, queue);
    }

    private Map<String, Object> figures(double from) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("scenario", scenario.name());
        out.put("kind", scenario.kind().id());
        out.put("scavenger", scenario.scavenger());
        out.put("base_rtt_ms", scenario.baseRttMs());
        out.put("tcp_cc", scenario.cc());
        out.put("tcp_flows", scenario.tcpFlows());
        out.put("window_start_s", from);
        double scavenger = 0;
        double tcp = 0;
        List<Double> perFlow = new ArrayList<>();
        List<Double> scavengerFlows = new ArrayList<>();
        Map<String, Object> flowsJson = new LinkedHashMap<>();
        for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
            double mean = meanAfter(e.getValue(), from);
            perFlow.add(mean);
            if (isCompetitor(e.getKey())) {
                tcp += mean;
            } else {
                scavenger += mean;
                scavengerFlows.add(mean);
            }
            flowsJson.put(e.getKey(), Map.of("mean_mbit_per_s", mean,
                    "series", e.getValue().stream().map(p -> List.of(p[0], p[1])).toList()));
        }
        double total = scavenger + tcp;
        out.put("scavenger_mbit_per_s", scavenger);
        out.put("tcp_mbit_per_s", tcp);
        out.put("scavenger_share", total == 0 ? Double.NaN : scavenger / total);
        out.put("goodput_utilisation", total * 1e6 / rateBitsPerSecond);
        out.put("link_use", meanAfter(wire, from) * 1e6 / rateBitsPerSecond);
        out.put("jain_index", scenario.kind() == FairnessScenario.Kind.LATECOMER
                ? Stats.jain(scavengerFlows.stream().mapToDouble(Double::doubleValue).toArray())
                : Stats.jain(perFlow.stream().mapToDouble(Double::doubleValue).toArray()));
        List<Double> q = after(queue, from);
        out.put("queue_delay_ms_mean", q.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN));
        out.put("queue_delay_ms_max", Stats.max(q));
        if (scenario.kind() == FairnessScenario.Kind.TCP_JOINS) {
            out.put("time_to_yield_s", timeToYield(from));
        }
        out.put("flows", flowsJson);
        out.put("queue_delay_ms_series", queue.stream().map(p -> List.of(p[0], p[1])).toList());
        return out;
    }

    /** See {@link TimeToYield}: over one second (two samples), at most {@link #YIELDED_SHARE}. */
    private double timeToYield(double from) {
        List<double[]> any = series.values().iterator().next();
        double[] times = any.stream().mapToDouble(p -> p[0]).toArray();
        double[] scavenger = new double[times.length];
        double[] all = new double[times.length];
        for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
            boolean isScavenger = !isCompetitor(e.getKey());
            for (double[] p : e.getValue()) {
                int i = Arrays.binarySearch(times, p[0]);
                if (i >= 0) {
                    all[i] += p[1];
                    if (isScavenger) {
                        scavenger[i] += p[1];
                    }
                }
            }
        }
        return TimeToYield.seconds(times, scavenger, all, from, YIELD_WINDOW_SAMPLES, YIELDED_SHARE);
    }

    private static double meanAfter(List<double[]> points, double from) {
        return after(points, from).stream().mapToDouble(Double::doubleValue).average().orElse(0);
    }

    private static List<Double> after(List<double[]> points, double from) {
        return points.stream().filter(p -> p[0] > from).map(p -> p[1]).toList();
    }

    private FlowStart scavenger(String n) {
        String spec = scenario.scavenger();
        String label = spec.replace(':', ' ') + "-" + n;
        if (spec.equals("libtorrent")) {
            return (bed, payload) -> {
                if (payload == null) {
                    throw new IllegalStateException("libtorrent flows need a prepared payload");
                }
                return LibtorrentFlow.start(label, payload, bed.clientNamespace(), bed.client().host().address(),
                        bed.serverNamespace());
            };
        }
        // ferry = utp://; udt is Ferry's UDT, whose default control is loss-tolerant too
        String scheme = spec.startsWith("udt") ? "udt" : "utp";
        String base = spec.startsWith("udt") ? "udt" : "ferry";
        ChannelOptions options = ChannelOptions.empty();
        if (spec.startsWith(base + ":")) {
            options = ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, spec.substring(base.length() + 1)).build();
        } else if (!spec.equals(base)) {
            throw new IllegalArgumentException("unknown scavenger '" + spec + "'; use ferry, ferry:CONTROLLER, udt, udt:CONTROLLER or libtorrent");
        }
        ChannelOptions chosen = options;
        return (bed, payload) -> StreamingFlow.start(label, scheme, chosen, bed.client(), bed.server());
    }

    /**
     * The competing flows: kernel TCP with the scenario's congestion control ({@code cubic}), or QUIC flows
     * over Ferry's quic:// with quiche's ({@code quic:cubic}, {@code quic:bbr}).
     */
    private List<FlowStart> tcp() {
        boolean quic = scenario.cc().startsWith(QUIC);
        String scheme = quic ? "quic" : "tcp";
        String cc = quic ? scenario.cc().substring(QUIC.length()) : scenario.cc();
        ChannelOptions options = ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, cc).build();
        List<FlowStart> out = new ArrayList<>();
        for (int i = 1; i <= scenario.tcpFlows(); i++) {
            String label = scheme + "-" + cc + "-" + i;
            out.add((bed, payload) -> StreamingFlow.start(label, scheme, options, bed.client(), bed.server()));
        }
        return out;
    }

    private static final String QUIC = "quic:";

    /** Whether a flow's label names a competing flow (TCP or QUIC) rather than a scavenger's. */
    private static boolean isCompetitor(String label) {
        return label.startsWith("tcp-") || label.startsWith("quic-");
    }

    @FunctionalInterface
    private interface FlowStart {
        MeasuredFlow start(TestBed bed, LibtorrentFlow.Payload payload) throws Exception;
    }
}
