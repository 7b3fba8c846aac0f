package io.ferry.bench.jmh;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.netns.RootAccess;
import io.ferry.bench.netns.Topology;
import io.ferry.bench.transfer.Peer;
import io.ferry.bench.transfer.StreamingFlow;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Fairness measured the way JMH measures throughput: the state is an emulated bottleneck (the TUN
 * emulator between two network namespaces: 100 Mbit/s, 150 ms drop-tail queue, {@code baseRttMs}),
 * carrying one uTP flow with the scavenger controller {@code controller} that ran alone for
 * {@code leadSeconds} and then {@code tcpFlows} TCP flows of congestion control {@code competitor}
 * that joined it. Each iteration is a window of the link (JMH's iteration time, {@code -r}, default
 * 5 s) and reports, through JMH's auxiliary counters, each side's goodput ({@code scavengerMbitPerS},
 * {@code tcpMbitPerS}, and the slowest and fastest TCP flow's), the scavenger's share of it and Jain's
 * index over all flows; JMH gives each as the mean over the measured iterations (and forks) with its
 * error. The warm-up iteration covers the moments right after the TCP flows joined; later ones show
 * whether the scavenger stays out of the way.
 *
 * <pre>java -jar bench/target/benchmarks.jar ScavengerFairness -p competitor=bbr -p tcpFlows=1</pre>
 *
 * Needs root (network namespaces and {@code /dev/net/tun}); without it the trial fails with the reason.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 1, time = 5)
@Measurement(iterations = 3, time = 5)
@Fork(1)
public class ScavengerFairnessBenchmark {

    private static final long RATE = 100_000_000;

    /** The scavenger's congestion controller (a name registered with transport-ledbat). */
    @Param({"ledbat"})
    public String controller;

    /** The TCP flows' congestion control. */
    @Param({"cubic", "bbr"})
    public String competitor;

    /** How many TCP flows join. */
    @Param({"1", "4"})
    public int tcpFlows;

    /** Base round-trip time of the emulated link, in milliseconds. */
    @Param({"20"})
    public int baseRttMs;

    /** Seconds the scavenger runs alone before the TCP flows join. */
    @Param({"5"})
    public int leadSeconds;

    private Topology topology;
    private Peer client;
    private Peer server;
    private StreamingFlow scavenger;
    private final List<StreamingFlow> tcp = new ArrayList<>();
    private long windowStart;
    private long scavengerAtStart;
    private long[] tcpAtStart;

    /**
     * What one window measured, as JMH secondary results. Each field is a figure of the window times the
     * window's length in seconds, declared as {@link AuxCounters.Type#OPERATIONS OPERATIONS}: JMH divides
     * it by the iteration's time (the window) and averages it over iterations and forks, with an error,
     * like any throughput ({@link FairnessWindow}). As {@code EVENTS} JMH summed them over iterations, so
     * {@code -i 3} reported three times every rate, share and index; and in {@code SingleShotTime} mode JMH
     * reports no {@code OPERATIONS} counter at all, hence {@code Throughput} mode.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Shares {
        public double scavengerMbitPerS;
        public double tcpMbitPerS;
        public double tcpSlowestFlowMbitPerS;
        public double tcpFastestFlowMbitPerS;
        public double scavengerShare;
        public double jainIndex;

        /** Sets every counter from one window's flow rates (the scavenger's first). */
        void record(FairnessWindow window) {
            scavengerMbitPerS = window.timeWeighted(window.scavengerMbitPerS());
            tcpMbitPerS = window.timeWeighted(window.tcpMbitPerS());
            tcpSlowestFlowMbitPerS = window.timeWeighted(window.tcpSlowestMbitPerS());
            tcpFastestFlowMbitPerS = window.timeWeighted(window.tcpFastestMbitPerS());
            scavengerShare = window.timeWeighted(window.scavengerShare());
            jainIndex = window.timeWeighted(window.jain());
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        String missing = RootAccess.missing().orElse(null);
        if (missing != null) {
            throw new IllegalStateException("ScavengerFairnessBenchmark needs an emulated link: " + missing);
        }
        LinkModel link = new LinkModel(0, RATE, LinkModel.queueFor(RATE, Duration.ofMillis(150)), Duration.ofMillis(baseRttMs / 2), 3);
        topology = Topology.emulated(link, link.withSeed(4));
        try {
            client = Peer.on(topology.clientHost());
            server = Peer.on(topology.serverHost());
            scavenger = StreamingFlow.start("scavenger", "utp",
                    ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, controller).build(), client, server);
            TimeUnit.SECONDS.sleep(leadSeconds);
            ChannelOptions options = ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, competitor).build();
            for (int i = 1; i <= tcpFlows; i++) {
                tcp.add(StreamingFlow.start("tcp-" + i, "tcp", options, client, server));
            }
        } catch (Exception e) {
            tearDown();
            throw e;
        }
    }

    /** Each iteration is one window: the counts start here. */
    @Setup(Level.Iteration)
    public void startWindow() {
        scavengerAtStart = scavenger.receivedBytes();
        tcpAtStart = tcp.stream().mapToLong(StreamingFlow::receivedBytes).toArray();
        windowStart = System.nanoTime();
    }

    /**
     * One look at the window so far (every 100 ms): the counters are set, not added to, to the window's
     * figures since it started, so the last invocation of an iteration leaves the whole window's.
     */
    @Benchmark
    public void window(Shares shares) throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(100);
        double seconds = (System.nanoTime() - windowStart) / 1e9;
        double[] rates = new double[tcp.size() + 1];
        rates[0] = (scavenger.receivedBytes() - scavengerAtStart) * 8 / seconds / 1e6;
        for (int i = 0; i < tcp.size(); i++) {
            rates[i + 1] = (tcp.get(i).receivedBytes() - tcpAtStart[i]) * 8 / seconds / 1e6;
        }
        shares.record(new FairnessWindow(seconds, rates));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        for (StreamingFlow f : tcp) {
            f.close();
        }
        tcp.clear();
        if (scavenger != null) {
            scavenger.close();
        }
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        if (topology != null) {
            topology.close();
        }
    }
}
