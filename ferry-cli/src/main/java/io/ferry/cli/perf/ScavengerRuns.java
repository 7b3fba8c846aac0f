package io.ferry.cli.perf;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * The scavenger's manners on the user's path, as the bench's fairness study asks them in a lab: a kernel
 * TCP flow alone, Ferry's LEDBAT ({@code utp}, controller {@code ledbat}) alone, LEDBAT established with
 * TCP joining, and the reverse. Every flow is an upload, so the server's clock times all of them and
 * the rates of two flows line up to the bin. LEDBAT's share and TCP's rate are judged from
 * {@link Timing#settleSeconds} after the join, as the bench does (RFC 6817 §2.4: yield within a few RTTs).
 */
public final class ScavengerRuns {

    /**
     * How long each run lasts: a flow alone, a joined run, when the second flow joins, and how long after
     * the join (or the start) the figures begin.
     */
    public record Timing(long aloneSeconds, long joinedSeconds, long joinAfterSeconds, long settleSeconds) {
        /** About 40 s in all: 6 s alone each, 12 s for each join run, the second flow joining after 4 s. */
        public static final Timing DEFAULT = new Timing(6, 12, 4, 2);

        public Timing {
            if (aloneSeconds <= settleSeconds || joinedSeconds <= joinAfterSeconds + settleSeconds || joinAfterSeconds < 1) {
                throw new IllegalArgumentException("each run must outlast its settling time: " + this);
            }
        }
    }
    /** The width of the series' samples in the report and chart. */
    static final double STEP_SECONDS = 0.5;

    private static final String LEDBAT = "utp";

    private final PerfClient client;
    private final ControlConnection control;
    private final Pinger pinger;
    private final double idleRtt;
    private final long aloneSeconds;
    private final long joinedSeconds;
    private final long joinAfterSeconds;
    private final long settleSeconds;

    ScavengerRuns(PerfClient client, ControlConnection control, Pinger pinger, double idleRtt) {
        Timing t = client.settings().fairnessTiming();
        aloneSeconds = t.aloneSeconds();
        joinedSeconds = t.joinedSeconds();
        joinAfterSeconds = t.joinAfterSeconds();
        settleSeconds = t.settleSeconds();
        this.client = client;
        this.control = control;
        this.pinger = pinger;
        this.idleRtt = idleRtt;
    }

    FairnessResult run() throws IOException, InterruptedException {
        String cc = client.settings().tcpCc();
        client.progress().started("tcp alone" + (cc == null ? "" : " (" + cc + ")"), aloneSeconds);
        double tcpAlone = alone("tcp", cc)[0];
        client.progress().started("ledbat alone", aloneSeconds);
        double[] ledbat = alone(LEDBAT, "ledbat");
        client.progress().started("tcp joins ledbat", joinedSeconds);
        FairnessResult.Join tcpJoins = joined(LEDBAT, "ledbat", "tcp", cc, false, tcpAlone);
        client.progress().started("ledbat joins tcp", joinedSeconds);
        FairnessResult.Join ledbatJoins = joined("tcp", cc, LEDBAT, "ledbat", true, tcpAlone);
        return new FairnessResult(cc == null ? "default" : cc, tcpAlone, ledbat[0], tcpAlone > 0 ? ledbat[0] / tcpAlone : Double.NaN,
                ledbat[1] - idleRtt, tcpJoins, ledbatJoins);
    }

    /** One flow alone: its rate from its second second on (Mbit/s), and the median RTT then. */
    private double[] alone(String spec, String cc) throws IOException, InterruptedException {
        ClientFlow flow = client.newMemoryFlow(spec, aloneSeconds);
        flow.open(client.ferry(), control, client.host(), cc, Long.MAX_VALUE);
        long start = flow.startNanos();
        PerfClient.sleepUntil(start + TimeUnit.SECONDS.toNanos(aloneSeconds) + TimeUnit.MILLISECONDS.toNanos(200));
        double rtt = pinger.median(start + TimeUnit.SECONDS.toNanos(settleSeconds), start + TimeUnit.SECONDS.toNanos(aloneSeconds));
        ClientFlow.Outcome o = flow.finish(control);
        return new double[]{mbps(o.bins(), bin(settleSeconds), bin(aloneSeconds)), rtt};
    }

    /**
     * {@code first} runs the joined time; {@code second} joins after the join time and
     * runs to the same end. {@code ledbatJoins}: whether the second flow is LEDBAT.
     */
    private FairnessResult.Join joined(String first, String firstCc, String second, String secondCc, boolean ledbatJoins,
                                       double tcpAlone) throws IOException, InterruptedException {
        ClientFlow a = client.newMemoryFlow(first, joinedSeconds);
        a.open(client.ferry(), control, client.host(), firstCc, Long.MAX_VALUE);
        long start = a.startNanos();
        PerfClient.sleepUntil(start + TimeUnit.SECONDS.toNanos(joinAfterSeconds));
        ClientFlow b = client.newMemoryFlow(second, joinedSeconds - joinAfterSeconds);
        try {
            b.open(client.ferry(), control, client.host(), secondCc, Long.MAX_VALUE);
        } catch (IOException e) {
            a.finish(control);
            throw e;
        }
        PerfClient.sleepUntil(start + TimeUnit.SECONDS.toNanos(joinedSeconds) + TimeUnit.MILLISECONDS.toNanos(200));
        ClientFlow.Outcome oa = a.finish(control);
        ClientFlow.Outcome ob = b.finish(control);
        // both in the server's clock: b's bins start this many bins after a's
        int offset = (int) Math.max(0, (ob.serverStartMillis() - oa.serverStartMillis()) / FlowSink.BIN_MILLIS);
        int end = bin(joinedSeconds);
        long[] firstBins = window(oa.bins(), 0, end);
        long[] secondBins = new long[end];
        for (int i = 0; i + offset < end && i < ob.bins().length; i++) {
            secondBins[i + offset] = ob.bins()[i];
        }
        long[] ledbat = ledbatJoins ? secondBins : firstBins;
        long[] tcp = ledbatJoins ? firstBins : secondBins;
        int from = offset + bin(settleSeconds);
        double ledbatRate = mbps(ledbat, from, end);
        double tcpRate = mbps(tcp, from, end);
        double share = ledbatRate + tcpRate > 0 ? ledbatRate / (ledbatRate + tcpRate) : Double.NaN;
        return new FairnessResult.Join(offset * FlowSink.BIN_MILLIS / 1000.0, share, tcpRate,
                tcpAlone > 0 ? tcpRate / tcpAlone : Double.NaN, STEP_SECONDS, series(ledbat), series(tcp));
    }

    private static int bin(double seconds) {
        return (int) Math.round(seconds * 1000 / FlowSink.BIN_MILLIS);
    }

    private static long[] window(long[] bins, int from, int to) {
        long[] out = new long[to - from];
        for (int i = from; i < to && i < bins.length; i++) {
            out[i - from] = bins[i];
        }
        return out;
    }

    /** The rate over bins [from, to), Mbit/s. */
    static double mbps(long[] bins, int from, int to) {
        long bytes = 0;
        for (int i = from; i < to && i < bins.length; i++) {
            bytes += bins[i];
        }
        double seconds = (to - from) * FlowSink.BIN_MILLIS / 1000.0;
        return seconds <= 0 ? Double.NaN : bytes * 8 / seconds / 1e6;
    }

    private static double[] series(long[] bins) {
        int per = bin(STEP_SECONDS);
        double[] out = new double[bins.length / per];
        for (int i = 0; i < out.length; i++) {
            out[i] = mbps(bins, i * per, (i + 1) * per);
        }
        return out;
    }
}
