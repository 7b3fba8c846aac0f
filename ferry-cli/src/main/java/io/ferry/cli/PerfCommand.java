package io.ferry.cli;

import io.ferry.cli.perf.PerfClient;
import io.ferry.cli.perf.PerfException;
import io.ferry.cli.perf.PerfOutput;
import io.ferry.cli.perf.PerfReport;
import io.ferry.cli.perf.PerfServer;
import io.ferry.cli.progress.Sizes;
import io.ferry.cli.transfer.SharedSecret;
import io.ferry.transport.Transports;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code ferry perf}: every transport and the scavenger's manners, measured on the user's own path between two hosts. */
@Command(name = "perf", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measure the path to another host: a timed bulk test per transport each way (goodput, round trip under "
                + "load, retransmissions, CPU per GiB at both ends), then how Ferry's scavenger (utp, LEDBAT) shares the path "
                + "with a TCP flow, and a verdict. Run 'ferry perf --server' on the other host first.",
                "",
                "  ferry perf --server                 (one host: ports 9300-9302, TCP and UDP)",
                "  ferry perf HOST                     (the other: about 2 minutes)",
                "  ferry perf HOST --transports tcp,udt --time 20 --no-fairness",
                "  ferry perf HOST --json > path.json  (and the chart in ferry-perf.svg)",
                ""})
final class PerfCommand implements Callable<Integer> {

    static final int DEFAULT_PORT = 9300;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "HOST[:PORT]", description = "The host running 'ferry perf --server'.")
    String target;

    @Option(names = {"-s", "--server"}, description = "Serve tests (one client at a time) until stopped.")
    boolean server;

    @Option(names = {"-p", "--port"}, paramLabel = "PORT", description = "Control port (default: " + DEFAULT_PORT + ").")
    Integer port;

    @Option(names = "--data-port", paramLabel = "PORT",
            description = "Server: first port of the tests' data (TCP and UDP; a second flow takes the next). Default: control port + 1.")
    Integer dataPort;

    @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = "0.0.0.0",
            description = "Server: the address to listen on (default: ${DEFAULT-VALUE}; :: for IPv6).")
    String bind;

    @Option(names = "--once", description = "Server: exit after the first client.")
    boolean once;

    @Option(names = "--max-time", paramLabel = "SECONDS", defaultValue = "60",
            description = "Server: the longest test it runs (default: ${DEFAULT-VALUE}).")
    long maxTime;

    @Option(names = {"-t", "--time"}, paramLabel = "SECONDS", defaultValue = "10",
            description = "Seconds each transport is tested, split between upload and download (default: ${DEFAULT-VALUE}).")
    long seconds;

    @Option(names = {"-R", "--reverse"}, description = "Download only (server to client), as iperf3 -R.")
    boolean reverse;

    @Option(names = "--upload", description = "Upload only (client to server), as plain iperf3.")
    boolean upload;

    @Option(names = "--bidir", description = "Both ways at once.")
    boolean bidir;

    @Option(names = "--transports", paramLabel = "SPEC", split = ",",
            description = "Only these, e.g. tcp,udt,utp?streams=4 (default: tcp, utp, udt, quic where both hosts have them, "
                    + "and tcp and utp over 4 streams).")
    List<String> transports;

    @Option(names = "--bytes", paramLabel = "SIZE", description = "At most this much per test, e.g. 1G (default: no cap).")
    String bytes;

    @Option(names = "--file", paramLabel = "FILE",
            description = "Include this host's disk: uploads send FILE (from its start again at its end), downloads are written "
                    + "beside it (FILE.ferry-perf-download, removed afterwards). Default: memory to memory.")
    Path file;

    @Option(names = "--no-fairness", description = "Skip the scavenger's tests (about 40 s).")
    boolean noFairness;

    @Option(names = "--tcp-cc", paramLabel = "NAME",
            description = "The TCP flow's congestion control in the scavenger's tests: cubic, bbr, reno... (default: the host's).")
    String tcpCc;

    @Option(names = "--token-file", paramLabel = "FILE",
            description = "A shared secret (at least 16 bytes, chmod 600): the server admits only clients that hold the same.")
    Path tokenFile;

    @Option(names = "--tls", description = "TLS on the control connection. Server: with --cert/--key, or a self-signed certificate "
            + "whose fingerprint it prints. Client: trusts the JDK's CAs unless --pin or --ca. The tests' data is not encrypted "
            + "(quic's is, by QUIC itself).")
    boolean tls;

    @Option(names = "--cert", paramLabel = "FILE", description = "Server: its certificate (PEM), with --key.")
    Path cert;

    @Option(names = "--key", paramLabel = "FILE", description = "Server: its private key (PEM), with --cert.")
    Path key;

    @Option(names = "--pin", paramLabel = "sha256:HEX", description = "Client: trust exactly the server certificate with this fingerprint.")
    String pin;

    @Option(names = "--ca", paramLabel = "FILE", description = "Client: trust servers whose certificates these CAs (PEM) signed.")
    Path ca;

    @Option(names = "--json", description = "Print the report as JSON (schema ferry-perf/1) instead of a table.")
    boolean json;

    @Option(names = "--chart", paramLabel = "FILE",
            description = "Write an SVG chart of the report (default with --json: ferry-perf.svg).")
    Path chart;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int controlPort = port != null ? port : DEFAULT_PORT;
        checkPort("--port", controlPort);
        SharedSecret secret = null;
        if (tokenFile != null) {
            try {
                secret = SharedSecret.read(tokenFile);
            } catch (SharedSecret.UnusableSecretException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--token-file: " + e.getMessage());
            }
        }
        if (server) {
            if (target != null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--server takes no HOST (it listens; see --bind)");
            }
            return serve(controlPort, secret, err);
        }
        if (target == null) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "a HOST to test is needed (or --server to serve tests): ferry perf HOST");
        }
        return test(secret, controlPort, out, err);
    }

    private int serve(int controlPort, SharedSecret secret, PrintWriter err) throws Exception {
        int data = dataPort != null ? dataPort : controlPort == 0 ? 0 : controlPort + 1;
        checkPort("--data-port", data);
        if (maxTime < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--max-time: at least 1 second");
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(bind);
        } catch (UnknownHostException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--bind: unknown address " + bind);
        }
        if (pin != null || ca != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), (pin != null ? "--pin" : "--ca") + " is for the client; the server takes --tls [--cert FILE --key FILE]");
        }
        if ((cert == null) != (key == null)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--cert and --key go together");
        }
        io.ferry.cli.tls.ReceiverTls serverTls = null;
        if (tls || cert != null) {
            try {
                serverTls = cert != null ? io.ferry.cli.tls.ReceiverTls.fromPem(cert, key) : io.ferry.cli.tls.ReceiverTls.selfSigned(bind);
            } catch (java.io.IOException e) {
                err.println("ferry perf: " + e.getMessage());
                return 1;
            }
            err.println("ferry perf: TLS certificate " + serverTls.fingerprint() + (cert == null ? " (self-signed, generated now)" : "")
                    + "; clients: ferry perf --tls --pin " + serverTls.fingerprint() + " HOST");
        }
        try (Transports ferry = Transports.create();
             PerfServer s = new PerfServer(ferry, new PerfServer.Settings(data, secret, maxTime, once, serverTls), err)) {
            InetSocketAddress bound = s.start(new InetSocketAddress(address, controlPort));
            err.println("ferry perf: serving tests on " + bind + ":" + bound.getPort() + " (data ports " + (data == 0 ? "any"
                    : data + "-" + (data + 1)) + ", TCP and UDP)" + (secret != null ? ", token required" : "")
                    + "; stop with Ctrl-C");
            err.flush();
            Thread hook = new Thread(s::close, "ferry-perf-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            s.await();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs now
            }
        } catch (PerfException e) {
            err.println("ferry perf: " + e.getMessage());
            return 1;
        }
        return 0;
    }

    private int test(SharedSecret secret, int defaultPort, PrintWriter out, PrintWriter err) throws Exception {
        String host = target;
        int controlPort = defaultPort;
        if (target.startsWith("[")) {
            int close = target.indexOf(']');
            if (close < 0) {
                throw new CommandLine.ParameterException(spec.commandLine(), "HOST: no ']' after the IPv6 address in " + target);
            }
            host = target.substring(1, close);
            if (target.length() > close + 1) {
                if (target.charAt(close + 1) != ':') {
                    throw new CommandLine.ParameterException(spec.commandLine(), "HOST: expected :PORT after ] in " + target);
                }
                controlPort = parsePort(target.substring(close + 2));
            }
        } else if (target.indexOf(':') >= 0 && target.indexOf(':') == target.lastIndexOf(':')) {
            host = target.substring(0, target.indexOf(':'));
            controlPort = parsePort(target.substring(target.indexOf(':') + 1));
        }
        if (seconds < 1 || seconds > 3600) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--time: 1 to 3600 seconds");
        }
        if ((reverse ? 1 : 0) + (upload ? 1 : 0) + (bidir ? 1 : 0) > 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--reverse, --upload and --bidir: one at most");
        }
        long cap = Long.MAX_VALUE;
        if (bytes != null) {
            try {
                cap = Sizes.parse(bytes);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--bytes: " + e.getMessage());
            }
        }
        PerfClient.Directions directions = reverse ? PerfClient.Directions.DOWN : upload ? PerfClient.Directions.UP
                : bidir ? PerfClient.Directions.BIDIR : PerfClient.Directions.BOTH;
        Path chartFile = chart != null ? chart : json ? Path.of("ferry-perf.svg") : null;
        if (cert != null || key != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--cert and --key are for the server (ferry perf --server --tls)");
        }
        io.ferry.cli.tls.SenderTls clientTls = null;
        try {
            if (pin != null) {
                clientTls = io.ferry.cli.tls.SenderTls.pinned(pin);
            } else if (ca != null) {
                clientTls = io.ferry.cli.tls.SenderTls.trusting(ca);
            } else if (tls) {
                clientTls = io.ferry.cli.tls.SenderTls.systemTrust();
            }
        } catch (java.io.IOException | IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), (pin != null ? "--pin: " : ca != null ? "--ca: " : "--tls: ") + e.getMessage());
        }
        if (file != null) {
            if (!java.nio.file.Files.isRegularFile(file) || !java.nio.file.Files.isReadable(file)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--file: " + file + " is not a readable file");
            }
            if (java.nio.file.Files.size(file) == 0) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--file: " + file + " is empty");
            }
            Path dir = file.toAbsolutePath().getParent();
            if (directions != PerfClient.Directions.UP && !java.nio.file.Files.isWritable(dir)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--file: downloads are written beside " + file
                        + ", and " + dir + " is not writable (or add --upload)");
            }
        }
        PerfClient.Settings settings = new PerfClient.Settings(transports == null ? List.of() : transports, seconds, directions, cap,
                !noFairness, tcpCc, secret, io.ferry.cli.perf.ScavengerRuns.Timing.DEFAULT, clientTls, file);
        try (Transports ferry = Transports.create()) {
            PerfReport report = new PerfClient(ferry, host, controlPort, settings, PerfOutput.progress(err, json)).run();
            PerfOutput.write(report, out, json, chartFile, err);
            return report.bulk().stream().allMatch(r -> r.error() == null) ? 0 : 1;
        } catch (PerfException e) {
            err.println("ferry perf: " + e.getMessage());
            return 1;
        }
    }

    private int parsePort(String text) {
        try {
            int p = Integer.parseInt(text);
            checkPort("HOST:PORT", p);
            return p;
        } catch (NumberFormatException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "HOST:PORT: '" + text + "' is not a port number");
        }
    }

    private void checkPort(String what, int p) {
        if (p < 0 || p > 65534) {
            throw new CommandLine.ParameterException(spec.commandLine(), what + ": " + p + " is not a usable port (0 to 65534)");
        }
    }
}
