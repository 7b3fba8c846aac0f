package io.ferry.bench.scenario;

import io.ferry.transport.ledbat.cc.CongestionControls;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * The scenario runner: reproduces the five studies of DESIGN.md on emulated links and writes
 * {@code results.json}, {@code report.md} and PNG charts into {@code --out}.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar io.ferry.bench.scenario.ScenarioRunner --quick --out target/scenarios
 * </pre>
 */
@Command(name = "ferry-scenarios", mixinStandardHelpOptions = true,
        description = "Reproduce the five studies of DESIGN.md on emulated links; write results.json, report.md and PNG charts.",
        footer = "Studies needing root (network namespaces, TUN) are skipped with the reason when it is missing. Exit 0 when every "
                + "study that could run finished, 1 when one threw, 2 on a bad command line.")
public final class ScenarioRunner implements Callable<Integer> {

    @Option(names = "--quick", description = "CI smoke profile: tiny sizes, one repetition (seconds to a couple of minutes).")
    boolean quick;

    @Option(names = "--full", description = "The studies' full sizes (an hour or more).")
    boolean full;

    @Option(names = "--only", split = ",", paramLabel = "STUDY",
            description = "Run only these studies: buffers, matrix, fairness, udp, parallel, striped, ccvalidation.")
    List<String> only = new ArrayList<>();

    @Option(names = "--out", paramLabel = "DIR", description = "Output directory (default: ${DEFAULT-VALUE}).")
    Path out = Path.of("target", "scenarios");

    @Option(names = "--repetitions", paramLabel = "N", description = "Repetitions per cell where a study repeats (default: the profile's).")
    int repetitions;

    @Option(names = "--scavengers", split = ",", paramLabel = "SPEC",
            description = "fairness: the scavengers: ferry (uTP, default controller), ferry:CONTROLLER (e.g. ferry:ledbat++), "
                    + "udt (Ferry's UDT, its loss-tolerant default control), udt:CONTROLLER (e.g. udt:udt), "
                    + "libtorrent (default: ferry,libtorrent).")
    List<String> scavengers = new ArrayList<>();

    @Option(names = "--base-rtts", split = ",", paramLabel = "MS",
            description = "fairness: base RTTs of the link in ms (default: 20,100; --quick: 20).")
    List<Integer> baseRtts = new ArrayList<>();

    @Option(names = "--fairness-scenarios", split = ",", paramLabel = "KIND",
            description = "fairness: alone, tcp-joins, scavenger-joins, together, latecomer (default: all; --quick: alone,tcp-joins,latecomer).")
    List<String> fairnessKinds = new ArrayList<>();

    @Option(names = "--competitors", split = ",", paramLabel = "CC",
            description = "fairness: the competing flows' congestion controls: reno, cubic, bbr for kernel TCP, quic:cubic, "
                    + "quic:bbr, quic:reno for QUIC flows (default: reno,cubic,bbr; --quick: cubic).")
    List<String> competitors = new ArrayList<>();

    @Option(names = "--tcp-flows", split = ",", paramLabel = "N",
            description = "fairness: how many TCP flows compete (default: 1,4; --quick: 1).")
    List<Integer> tcpFlows = new ArrayList<>();

    @Option(names = "--loss-rates", split = ",", paramLabel = "FRACTION",
            description = "fairness: random loss of the bottleneck in each direction, e.g. 0,0.01 (default: 0).")
    List<Double> lossRates = new ArrayList<>();

    @Option(names = "--queue-ms", split = ",", paramLabel = "MS",
            description = "fairness: the bottleneck's drop-tail queue in ms at 100 Mbit/s (default: 150; 2 is shallower than "
                    + "the scavenger's target at 20 ms).")
    List<Double> queuesMs = new ArrayList<>();

    @Option(names = "--matrix-conditions", split = ",", paramLabel = "ID",
            description = "matrix: the link conditions: local, delay (50 ms RTT), loss (25 %% each way), loss-delay (25 %% + 50 ms RTT), "
                    + "lossy-long (1 %% + 100 ms RTT) (default: all; --quick: local,delay).")
    List<String> matrixConditions = new ArrayList<>();

    @Option(names = "--striped-transports", split = ",", paramLabel = "NAME",
            description = "striped: the transports striped (default: tcp); quic's members are streams of one QUIC connection.")
    List<String> stripedTransports = new ArrayList<>();

    @Option(names = "--buffer-sizes", split = ",", paramLabel = "BYTES",
            description = "buffers: the SEND/RECEIVE_BUFFER_SIZE values swept (default: 16 KiB..512 MiB; --quick: 64 KiB, 4 MiB); "
                    + "0 sweeps none, leaving each transport's defaults and the reference rows.")
    List<Long> bufferSizes = new ArrayList<>();

    @Option(names = "--transports", split = ",", paramLabel = "NAME",
            description = "matrix: the transports (default: tcp, utp, udt and whatever else is installed); NAME:CC runs NAME with that "
                    + "CONGESTION_CONTROL, e.g. udt:udt for UDT4's own control.")
    List<String> matrixTransports = new ArrayList<>();

    @Option(names = "--file-sizes", split = ",", paramLabel = "BYTES",
            description = "matrix: file sizes in bytes (default: 1,28000,2800000,14000000; --full adds 110000000).")
    List<Long> fileSizes = new ArrayList<>();

    @Option(names = "--packet-sizes", split = ",", paramLabel = "BYTES",
            description = "matrix: PACKET_SIZE values (default: 64,1500,10000,64000; 1500 on the loss-delay and lossy-long paths).")
    List<Integer> packetSizes = new ArrayList<>();

    @Option(names = "--algorithms", split = ",", paramLabel = "SPEC",
            description = "parallel: the rows, TRANSPORT:CC (tcp:reno, utp:westwood+) or a bare name for the kernel's and Ferry's "
                    + "(cubic = tcp:cubic,utp:cubic) (default: tcp reno, cubic, bbr; utp newreno, cubic, highspeed, vegas, westwood+, "
                    + "bbr, ledbat; --quick: tcp:cubic,utp:cubic,utp:bbr).")
    List<String> algorithms = new ArrayList<>();

    @Option(names = "--cc-pairs", split = ",", paramLabel = "KERNEL_CC",
            description = "ccvalidation: the kernel algorithms compared with Ferry's (reno with newreno, cubic, bbr) (default: "
                    + "reno,cubic,bbr; --quick: cubic).")
    List<String> ccPairs = new ArrayList<>();

    @Option(names = "--cc-conditions", split = ",", paramLabel = "ID",
            description = "ccvalidation: clean-deep, clean-shallow, loss-deep, loss-shallow (deep = 1 BDP queue, shallow = 0.1 BDP, "
                    + "loss = 1 %% per IP packet each way) (default: all; --quick: clean-deep).")
    List<String> ccConditions = new ArrayList<>();

    @Option(names = "--kernel-pacing", description = "ccvalidation: switch on Linux's internal pacing for the kernel's flows "
            + "(PACING_RATE far above the link), to see what pacing accounts for.")
    boolean kernelPacing;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final PrintStream log;

    ScenarioRunner(PrintStream log) {
        this.log = log;
    }

    /** All studies, in the order of DESIGN.md. */
    List<Study> studies() {
        return List.of(new BufferSweepStudy(bufferSizes), new FileMatrixStudy(new MatrixSelection(matrixConditions, matrixTransports, fileSizes, packetSizes)),
                new FairnessStudy(new FairnessSelection(scavengers, baseRtts, fairnessKinds, competitors, tcpFlows, lossRates, queuesMs)),
                new UdpLossStudy(), new TcpParallelStudy(algorithms), new StripedStudy(stripedTransports), new CcValidationStudy(ccPairs, ccConditions, kernelPacing),
                new PerfPathsStudy());
    }

    @Override
    public Integer call() throws Exception {
        if (quick && full) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--quick and --full exclude each other");
        }
        Profile profile = quick ? Profile.QUICK : full ? Profile.FULL : Profile.DEFAULT;
        try {
            new TcpParallelStudy(algorithms);
            new CcValidationStudy(ccPairs, ccConditions, kernelPacing);
            new MatrixSelection(matrixConditions, matrixTransports, fileSizes, packetSizes);
            new FairnessSelection(scavengers, baseRtts, fairnessKinds, competitors, tcpFlows, lossRates, queuesMs);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        for (String kind : fairnessKinds) {
            try {
                FairnessScenario.Kind.byId(kind);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        for (String scavenger : scavengers) {
            if (!scavenger.matches("ferry|libtorrent|udt|ferry:.+|udt:(udt|ferry)")) {
                throw new CommandLine.ParameterException(spec.commandLine(), "unknown scavenger '" + scavenger
                        + "'; use ferry, ferry:CONTROLLER, udt, udt:udt, udt:ferry or libtorrent");
            }
            String controller = scavenger.startsWith("ferry:") ? scavenger.substring("ferry:".length()) : null;
            if (controller != null && !CongestionControls.isRegistered(controller)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "unknown uTP controller '" + controller
                        + "' in --scavengers; known: " + CongestionControls.names());
            }
        }
        List<Study> selected = new ArrayList<>();
        for (Study s : studies()) {
            if (only.isEmpty() || only.contains(s.id())) {
                selected.add(s);
            }
        }
        for (String id : only) {
            if (studies().stream().noneMatch(s -> s.id().equals(id))) {
                throw new CommandLine.ParameterException(spec.commandLine(), "unknown study '" + id
                        + "'; choose from " + studies().stream().map(Study::id).toList());
            }
        }
        Files.createDirectories(out);
        TransportCatalog transports = TransportCatalog.discover();
        StudyContext ctx = new StudyContext(profile, repetitions, out, transports, log);
        log.println("ferry scenarios: profile " + profile.name().toLowerCase(Locale.ROOT) + ", transports installed "
                + transports.installedNames() + ", output " + out.toAbsolutePath());
        List<StudyResult> results = new ArrayList<>();
        long start = System.nanoTime();
        int exit = 0;
        for (Study s : selected) {
            Optional<String> reason = s.cannotRun();
            if (reason.isPresent()) {
                log.println("SKIPPED " + s.title() + ": " + reason.get());
                results.add(StudyResult.skipped(s, reason.get()));
                continue;
            }
            log.println(s.title());
            long t0 = System.nanoTime();
            try {
                results.add(s.run(ctx));
            } catch (Exception e) {
                exit = 1;
                log.println("FAILED " + s.title() + ": " + e);
                e.printStackTrace(log);
                results.add(StudyResult.skipped(s, "failed: " + e));
            }
            log.printf(Locale.ROOT, "  (%.0f s)%n", (System.nanoTime() - t0) / 1e9);
            ReportWriter.write(out, profile, transports, results, (System.nanoTime() - start) / 1e9);
        }
        ReportWriter.write(out, profile, transports, results, (System.nanoTime() - start) / 1e9);
        log.println("wrote " + out.resolve("report.md") + " and " + out.resolve("results.json"));
        return exit;
    }

    /** Runs the command line and returns the exit code. */
    public static int run(PrintStream log, String... args) {
        return new CommandLine(new ScenarioRunner(log)).execute(args);
    }

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(run(System.out, args));
    }
}
