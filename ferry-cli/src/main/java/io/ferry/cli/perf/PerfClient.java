package io.ferry.cli.perf;

import io.ferry.cli.transfer.SharedSecret;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.Transports;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code ferry perf HOST}: connects to a {@link PerfServer}, measures the idle round trip, runs a timed
 * bulk test per transport and direction, then (unless told not to) the scavenger's manners
 * ({@link ScavengerRuns}), and returns everything as a {@link PerfReport}.
 */
public final class PerfClient {

    /** Which ways each transport is tested. */
    public enum Directions {
        /** Upload, then download (the default). */
        BOTH,
        /** Client to server only (iperf3's default). */
        UP,
        /** Server to client only (iperf3's {@code -R}). */
        DOWN,
        /** Both ways at once (iperf3's {@code --bidir}). */
        BIDIR
    }

    /**
     * What to run.
     *
     * @param transports   specs such as {@code tcp}, {@code utp?streams=4}; empty: every transport both ends have,
     *                     and tcp and utp over four streams
     * @param seconds      each transport's time, split between the directions when both are tested one after the other
     * @param directions   which ways
     * @param maxBytes     at most this many bytes per test (Long.MAX_VALUE: no cap)
     * @param fairness     whether to run the scavenger's tests
     * @param tcpCc        the TCP flow's congestion control in those tests, or null for the host's default
     * @param secret       the token to prove, or null
     * @param fairnessTiming how long the scavenger's runs last
     * @param tls          TLS for the control connection, or null for plain TCP
     * @param file         with {@code --file}: uploads send this file, downloads are stored beside it; null: memory to memory
     */
    public record Settings(List<String> transports, long seconds, Directions directions, long maxBytes, boolean fairness,
                           String tcpCc, SharedSecret secret, ScavengerRuns.Timing fairnessTiming, io.ferry.cli.tls.SenderTls tls,
                           java.nio.file.Path file) {
    }

    /** Told of each step, for a terminal's progress line. */
    public interface Progress {
        void started(String what, double seconds);

        void finished(BulkResult result);

        /** The run is over (clears a terminal's line). */
        default void done() {
        }

        Progress NONE = new Progress() {
            @Override
            public void started(String what, double seconds) {
            }

            @Override
            public void finished(BulkResult result) {
            }
        };
    }

    private final Transports ferry;
    private final String host;
    private final int port;
    private final Settings settings;
    private final Progress progress;
    private long nextId = 1;

    public PerfClient(Transports ferry, String host, int port, Settings settings, Progress progress) {
        this.ferry = ferry;
        this.host = PerfUris.host(host);
        this.port = port;
        this.settings = settings;
        this.progress = progress;
    }

    public PerfReport run() throws IOException, InterruptedException {
        long began = System.nanoTime();
        AtomicReference<ControlConnection> attached = new AtomicReference<>();
        ChannelFuture connected = ferry.connect("tcp://" + host + ":" + port, new ChannelInitializer<>() {
            @Override
            protected void initChannel(io.netty.channel.Channel ch) {
                attached.set(ControlConnection.attach(ch));
                if (settings.tls() != null) {
                    settings.tls().addTo(ch.pipeline(), host.startsWith("[") ? host.substring(1, host.length() - 1) : host, port);
                }
            }
        }, ChannelOptions.builder().set(FerryChannelOption.CONNECT_TIMEOUT, Duration.ofSeconds(10)).build());
        if (!connected.await(15, TimeUnit.SECONDS) || !connected.isSuccess()) {
            if (connected.channel().isRegistered()) {
                connected.channel().close();
            }
            throw new PerfException("cannot reach a ferry perf server at " + host + ":" + port + ": "
                    + (connected.cause() == null ? "no answer in 15 s" : connected.cause().getMessage())
                    + " (start one there with: ferry perf --server)");
        }
        try (ControlConnection control = attached.get(); Pinger pinger = new Pinger(control)) {
            List<String> serverSchemes = greet(control);
            pinger.start();
            Thread.sleep(1_100);
            double idle = pinger.median(began, System.nanoTime());
            List<String> specs = plan(serverSchemes);
            List<BulkResult> results = new ArrayList<>();
            for (String spec : specs) {
                results.addAll(bulk(control, pinger, spec, idle));
            }
            FairnessResult fairness = null;
            String fairnessSkipped = null;
            if (settings.fairness()) {
                if (serverSchemes.contains("tcp") && serverSchemes.contains("utp") && ferry.schemes().contains("utp")) {
                    fairness = new ScavengerRuns(this, control, pinger, idle).run();
                } else {
                    fairnessSkipped = "utp and tcp are needed on both hosts";
                }
            }
            control.send(ControlMessage.of("BYE"));
            progress.done();
            return new PerfReport(host, port, idle, results, fairness, fairnessSkipped,
                    (System.nanoTime() - began) / 1e9);
        }
    }

    private List<String> greet(ControlConnection control) throws IOException, InterruptedException {
        control.send(ControlMessage.of("HELLO", "version", ServerSession.VERSION));
        ControlMessage welcome = control.next(15_000);
        if (welcome.is("BUSY")) {
            throw new PerfException("the server is busy: " + welcome.get("text", "another client is testing"));
        }
        if (!welcome.is("WELCOME")) {
            throw new PerfException(host + ":" + port + " is not a ferry perf server (it answered " + welcome.verb() + ")");
        }
        if (welcome.get("auth", "none").equals("token")) {
            if (settings.secret() == null) {
                throw new PerfException("the server needs a token: run ferry perf with --token-file FILE (the server's secret)");
            }
            byte[] serverNonce = HexFormat.of().parseHex(welcome.get("nonce"));
            byte[] clientNonce = SharedSecret.freshNonce();
            control.send(ControlMessage.of("PROVE", "nonce", HexFormat.of().formatHex(clientNonce), "proof",
                    HexFormat.of().formatHex(settings.secret().proofFor(ServerSession.PURPOSE, "client", clientNonce, serverNonce))));
            ControlMessage proven = control.expect("PROVEN", 15_000);
            if (!settings.secret().verifiesFor(ServerSession.PURPOSE, "server", clientNonce, serverNonce,
                    HexFormat.of().parseHex(proven.get("proof")))) {
                throw new PerfException("the server did not prove it holds the token: it is not the server you meant");
            }
        }
        return Arrays.asList(welcome.get("schemes", "").split(","));
    }

    /** The specs to test: those asked for, or every transport both ends have (tcp and utp also over 4 streams). */
    private List<String> plan(List<String> serverSchemes) throws PerfException {
        List<String> specs = new ArrayList<>();
        if (settings.transports().isEmpty()) {
            for (String scheme : List.of("tcp", "utp", "udt", "quic")) {
                if (ferry.schemes().contains(scheme) && serverSchemes.contains(scheme)) {
                    specs.add(scheme);
                }
            }
            for (String striped : List.of("tcp", "utp")) {
                if (specs.contains(striped)) {
                    specs.add(striped + "?streams=4");
                }
            }
            return specs;
        }
        for (String spec : settings.transports()) {
            String scheme = PerfUris.scheme(spec);
            if (!ferry.schemes().contains(scheme)) {
                throw new PerfException(scheme + " is not installed here; installed: " + String.join(", ", ferry.transportNames()));
            }
            if (!serverSchemes.contains(scheme) && !(scheme.equals("ledbat") && serverSchemes.contains("utp"))) {
                throw new PerfException(scheme + " is not installed on the server; it has: " + String.join(", ", serverSchemes));
            }
            specs.add(spec);
        }
        return specs;
    }

    private List<BulkResult> bulk(ControlConnection control, Pinger pinger, String spec, double idle)
            throws IOException, InterruptedException {
        List<BulkResult> out = new ArrayList<>();
        switch (settings.directions()) {
            case BOTH -> {
                long each = Math.max(1, settings.seconds() / 2);
                out.add(one(control, pinger, spec, idle, each, true));
                out.add(one(control, pinger, spec, idle, each, false));
            }
            case UP -> out.add(one(control, pinger, spec, idle, settings.seconds(), true));
            case DOWN -> out.add(one(control, pinger, spec, idle, settings.seconds(), false));
            case BIDIR -> out.addAll(both(control, pinger, spec, idle, settings.seconds()));
        }
        return out;
    }

    private BulkResult one(ControlConnection control, Pinger pinger, String spec, double idle, long seconds, boolean up)
            throws IOException, InterruptedException {
        String direction = up ? "up" : "down";
        progress.started(spec + " " + direction, seconds);
        BulkResult r = measure(control, pinger, List.of(new Leg(spec, up, direction)), idle, seconds).get(0);
        progress.finished(r);
        return r;
    }

    private List<BulkResult> both(ControlConnection control, Pinger pinger, String spec, double idle, long seconds)
            throws IOException, InterruptedException {
        progress.started(spec + " both ways at once", seconds);
        List<BulkResult> r = measure(control, pinger, List.of(new Leg(spec, true, "bidir-up"), new Leg(spec, false, "bidir-down")),
                idle, seconds);
        r.forEach(progress::finished);
        return r;
    }

    private record Leg(String spec, boolean up, String direction) {
    }

    /** Runs {@code legs} at once for {@code seconds}; a leg that cannot start fails its row, not the run. */
    private List<BulkResult> measure(ControlConnection control, Pinger pinger, List<Leg> legs, double idle, long seconds)
            throws IOException, InterruptedException {
        List<ClientFlow> flows = new ArrayList<>();
        List<BulkResult> results = new ArrayList<>();
        long cpu0 = ProcessCpu.nanos();
        try {
            for (Leg leg : legs) {
                ClientFlow flow = newFlow(leg.spec(), leg.up(), seconds);
                flow.open(ferry, control, host, null, settings.maxBytes());
                flows.add(flow);
            }
        } catch (PerfException e) {
            for (ClientFlow f : flows) {
                f.finish(control);
            }
            for (Leg leg : legs) {
                results.add(BulkResult.failed(leg.spec(), leg.direction(), seconds, idle, e.getMessage()));
            }
            return results;
        }
        long start = flows.get(0).startNanos();
        sleepUntil(start + TimeUnit.SECONDS.toNanos(seconds) + TimeUnit.MILLISECONDS.toNanos(200));
        double loaded = pinger.median(start + TimeUnit.SECONDS.toNanos(1), start + TimeUnit.SECONDS.toNanos(seconds));
        List<ClientFlow.Outcome> outcomes = new ArrayList<>();
        for (ClientFlow f : flows) {
            outcomes.add(f.finish(control));
        }
        long clientCpu = ProcessCpu.nanos() - cpu0;
        for (int i = 0; i < legs.size(); i++) {
            Leg leg = legs.get(i);
            ClientFlow.Outcome o = outcomes.get(i);
            int binsInTest = (int) (seconds * 1000 / FlowSink.BIN_MILLIS);
            long bytes = 0;
            double[] perSecond = new double[(int) seconds];
            for (int b = 0; b < Math.min(binsInTest, o.bins().length); b++) {
                bytes += o.bins()[b];
                perSecond[b * FlowSink.BIN_MILLIS / 1000] += o.bins()[b] * 8 / 1e6;
            }
            // both ends' CPU covers every leg of a bidirectional test; each leg's row shows it per GiB of all legs
            long allBytes = 0;
            for (ClientFlow.Outcome each : outcomes) {
                for (int b = 0; b < Math.min(binsInTest, each.bins().length); b++) {
                    allBytes += each.bins()[b];
                }
            }
            double clientPerGiB = BulkResult.cpuPerGiB(cpu0 < 0 ? -1 : clientCpu, allBytes);
            long serverCpu = outcomes.stream().mapToLong(ClientFlow.Outcome::serverCpuNanos).max().orElse(-1);
            double serverPerGiB = BulkResult.cpuPerGiB(serverCpu, allBytes);
            results.add(new BulkResult(leg.spec(), leg.direction(), seconds, bytes, perSecond, idle, loaded, o.sender(),
                    leg.up() ? clientPerGiB : serverPerGiB, leg.up() ? serverPerGiB : clientPerGiB, o.error()));
        }
        return results;
    }

    /** A flow of the bulk tests (with {@code --file}, through the disk). */
    ClientFlow newFlow(String spec, boolean clientSends, long seconds) throws IOException {
        return new ClientFlow(nextId++, spec, clientSends, seconds, settings.maxBytes(), settings.file());
    }

    /** A flow of the scavenger's tests: memory to memory always (they measure the path's sharing, not a disk). */
    ClientFlow newMemoryFlow(String spec, long seconds) throws IOException {
        return new ClientFlow(nextId++, spec, true, seconds, Long.MAX_VALUE, null);
    }

    Transports ferry() {
        return ferry;
    }

    String host() {
        return host;
    }

    Settings settings() {
        return settings;
    }

    Progress progress() {
        return progress;
    }

    static void sleepUntil(long nanos) throws InterruptedException {
        long left;
        while ((left = nanos - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }
}
