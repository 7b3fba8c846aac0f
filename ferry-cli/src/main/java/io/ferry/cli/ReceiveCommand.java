package io.ferry.cli;

import io.ferry.cli.metrics.MetricsEndpoint;
import io.ferry.cli.metrics.ReceiverMeters;
import io.ferry.cli.progress.Sizes;
import io.ferry.cli.report.JsonSummary;
import io.ferry.cli.tls.ReceiverTls;
import io.ferry.transport.quic.QuicOption;
import io.ferry.transport.quic.QuicTransport;
import io.ferry.cli.tls.SenderCertificateCheck;
import io.ferry.cli.transfer.AbandonedPartials;
import io.ferry.cli.transfer.Checksum;
import io.ferry.cli.transfer.Failures;
import io.ferry.cli.transfer.FileOutcome;
import io.ferry.cli.transfer.FileReceiveSession;
import io.ferry.cli.transfer.SenderLimits;
import io.ferry.cli.transfer.SharedSecret;
import io.ferry.cli.transfer.ReceiverEvents;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.TransportUri;
import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/** {@code ferry receive --listen URI --dir DIR}. */
@Command(name = "receive", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Receive files into a directory until stopped (Ctrl-C), from many senders at once.",
                "Each file is written to a hidden .NAME.ferry-part file and renamed to NAME only after its checksum (the sender's "
                        + "--checksum: CRC-32C by default, or SHA-256) matched; "
                        + "an interrupted transfer leaves the .ferry-part file for the next send to resume from."},
        footer = {"", "Examples:",
                "  ferry receive --listen tcp://0.0.0.0:9000 --dir ./inbox",
                "  ferry receive --listen utp://0.0.0.0:9000 --dir ./inbox --once",
                "  ferry receive --listen tcp://0.0.0.0:9443 --dir ./inbox --tls            (self-signed; prints the fingerprint to pin)",
                "  ferry receive --listen tcp://0.0.0.0:9443 --dir ./inbox --tls --cert cert.pem --key key.pem",
                "  ferry receive --listen tcp://0.0.0.0:9443 --dir ./inbox --allow sha256:5c1e...   (only the sender with that certificate)",
                "  ferry receive --listen tcp://0.0.0.0:9000 --dir ./inbox --token-file ~/.ferry-token   (only senders with the same secret)",
                "  ferry receive --listen tcp://0.0.0.0:9000 --dir ./inbox --metrics-port 9100   (Prometheus: http://127.0.0.1:9100/metrics)"})
final class ReceiveCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--listen", required = true, paramLabel = "URI",
            description = "Where to listen, e.g. tcp://0.0.0.0:9000 or utp://0.0.0.0:9000 (port 0: any free port, printed at start).")
    String listen;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "Directory to store received files in (created if missing).")
    Path dir;

    @Option(names = "--overwrite", description = "Replace files that exist with different content (default: refuse them).")
    boolean overwrite;

    @Option(names = "--take-over-after", paramLabel = "SECONDS", defaultValue = "15",
            description = "A sender that has sent nothing for this long gives way to a new sender of the same file, which "
                    + "resumes from what was received (default: ${DEFAULT-VALUE}). Over uTP and UDT a killed sender "
                    + "otherwise holds its files until the transport's idle timeout.")
    double takeOverAfter;

    @Option(names = "--max-bytes", paramLabel = "SIZE",
            description = "At most this much from one sender (by IP address, over all its sessions while the receiver runs; "
                    + "each file counted with its offered size, a file sent again counted once), e.g. 10G. Default: no limit.")
    String maxBytes;

    @Option(names = "--max-files", paramLabel = "N", description = "At most this many files from one sender (as --max-bytes; a directory or link counts as one). Default: no limit.")
    Integer maxFiles;

    @Option(names = "--keep-partials", paramLabel = "DAYS", defaultValue = "7",
            description = "Remove a partial file (.NAME.ferry-part) that no sender has written for this many days, "
                    + "at start and once a day, with a line each (default: ${DEFAULT-VALUE}; 0 keeps them for ever).")
    double keepPartialsDays;

    @Option(names = "--once", description = "Exit after the first session: 0 if all its files were stored and verified, 1 otherwise.")
    boolean once;

    @Option(names = "--tls", description = "Require TLS. Without --cert/--key a self-signed certificate is generated and its "
            + "fingerprint printed for senders to --pin.")
    boolean tls;

    @Option(names = "--cert", paramLabel = "FILE", description = "PEM certificate (chain) for --tls.")
    Path cert;

    @Option(names = "--key", paramLabel = "FILE", description = "PEM PKCS#8 private key for --tls.")
    Path key;

    @Option(names = "--allow", paramLabel = "sha256:HEX",
            description = "Let in only senders presenting this certificate (its SHA-256 fingerprint, as ferry keygen prints it); "
                    + "repeatable. Implies --tls and --require-client-cert.")
    List<String> allow = new ArrayList<>();

    @Option(names = "--client-ca", paramLabel = "FILE",
            description = "Let in only senders presenting a certificate issued by a CA certificate in this PEM file. "
                    + "Implies --tls and --require-client-cert.")
    Path clientCa;

    @Option(names = "--require-client-cert",
            description = "Refuse senders without an allowed certificate (with --allow and/or --client-ca, which imply it).")
    boolean requireClientCert;

    @Option(names = "--token-file", paramLabel = "FILE",
            description = "Let in only senders holding the shared secret in FILE (at least 16 bytes, readable by its owner only; "
                    + "senders give the same --token-file). Each side proves it holds the secret with a challenge; the secret "
                    + "itself is never sent. Works with and without --tls.")
    Path tokenFile;

    @Option(names = "--opt", paramLabel = "NAME=VALUE", description = "A transport option for the listener and its connections. Repeatable.")
    List<String> opts = new ArrayList<>();

    @Option(names = "--metrics-port", paramLabel = "PORT",
            description = "Serve the receiver's meters (each connection's ferry_transport_* meters, files, bytes, failures) "
                    + "in Prometheus' text format at http://ADDRESS:PORT/metrics; 0 picks a free port (printed). Default: off.")
    Integer metricsPort;

    @Option(names = "--metrics-address", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
            description = "Address the metrics endpoint listens on (default: ${DEFAULT-VALUE}, this machine only).")
    String metricsAddress;

    @Option(names = "--checksum", paramLabel = "NAME", converter = ChecksumConverter.class, completionCandidates = ChecksumNames.class,
            description = "Take files only from senders that check them with this checksum (crc32c or sha256); others are "
                    + "refused with one line before they offer anything. Default: either, as each sender chooses.")
    Checksum requiredChecksum;

    @Option(names = "--json", description = "Print one JSON line per stored or failed file on stdout instead of text.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if ((cert == null) != (key == null)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--cert and --key go together");
        }
        if (!(takeOverAfter >= 0) || Double.isInfinite(takeOverAfter)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--take-over-after must be a number of seconds, 0 or more (got " + takeOverAfter + ")");
        }
        if (!(keepPartialsDays >= 0)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--keep-partials must be a number of days, 0 or more (got "
                    + keepPartialsDays + ")");
        }
        Duration takeover = Duration.ofNanos((long) (takeOverAfter * 1e9));
        SenderLimits limits = limits();
        SenderCertificateCheck senderCheck = senderCheck();
        SharedSecret token = null;
        if (tokenFile != null) {
            try {
                token = SharedSecret.read(tokenFile);
            } catch (SharedSecret.UnusableSecretException e) {
                err.println("ferry receive: --token-file: " + e.getMessage());
                return 1;
            }
        }
        SharedSecret sessionToken = token;
        if (metricsPort != null && (metricsPort < 0 || metricsPort > 65_535)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--metrics-port must be a port number from 0 to 65535 (got "
                    + metricsPort + ")");
        }
        MetricsEndpoint metrics = null;
        if (metricsPort != null) {
            try {
                metrics = MetricsEndpoint.start(new InetSocketAddress(metricsAddress, metricsPort));
            } catch (IOException | RuntimeException e) {
                err.println("ferry receive: cannot serve metrics on " + metricsAddress + ":" + metricsPort + ": "
                        + (e.getMessage() != null ? e.getMessage() : e.toString()));
                return 1;
            }
        }
        ReceiverMeters meters = metrics == null ? null : new ReceiverMeters(metrics.registry());
        Transports ferry = Transports.create();
        Runtime.getRuntime().addShutdownHook(new Thread(ferry::close, "ferry-receive-shutdown"));
        try {
            TransportUri asked = TransportArgs.uri(spec, ferry, "--listen", listen, true);
            // Striped, so that a sender may use any number of streams (ferry send --streams N).
            ChannelOptions listenOptions = TransportArgs.striped(spec, TransportArgs.options(spec, ferry, asked, opts), 1);
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                err.println("ferry receive: cannot use " + dir + " as the receiving directory: " + Failures.directoryProblem(e));
                return 1;
            }
            if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
                err.println("ferry receive: " + dir + " is not a writable directory");
                return 1;
            }
            ReceiverTls receiverTls = null;
            if (tls || cert != null || senderCheck != null) {
                try {
                    receiverTls = cert != null ? ReceiverTls.fromPem(cert, key, senderCheck) : ReceiverTls.selfSigned(asked.host(), senderCheck);
                } catch (IOException e) {
                    err.println("ferry receive: " + e.getMessage());
                    return 1;
                }
            }
            // QUIC carries TLS itself: the receiver's certificate and sender check become QUIC's, not a second TLS inside it
            boolean quicTls = receiverTls != null && QuicTransport.NAME.equals(asked.scheme());
            ChannelOptions options;
            try {
                options = quicTls ? listenOptions.toBuilder().set(QuicOption.SERVER_TLS, receiverTls.quic()).build() : listenOptions;
            } catch (IOException e) {
                err.println("ferry receive: " + e.getMessage());
                return 1;
            }
            CompletableFuture<Integer> firstSession = new CompletableFuture<>();
            ReceiverEvents events = meters == null ? events(out, err, firstSession) : meters.counting(events(out, err, firstSession));
            ReceiverTls sessionTls = quicTls ? null : receiverTls;
            if (quicTls && senderCheck != null) {
                senderCheck.onRefusal(why -> events.failed("TLS with a QUIC sender failed: TLS: " + why));
            }
            ChannelFuture bound = ferry.listen(listen, new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    if (meters != null) {
                        meters.accepted(ch);
                    }
                    FileReceiveSession session = new FileReceiveSession(dir, overwrite, events, takeover, limits);
                    if (sessionToken != null) {
                        session.requireToken(sessionToken);
                    }
                    if (requiredChecksum != null) {
                        session.requireChecksum(requiredChecksum);
                    }
                    session.addTo(ch.pipeline());
                    if (sessionTls != null) {
                        sessionTls.addTo(ch.pipeline());
                    }
                }
            }, options);
            bound.await();
            if (!bound.isSuccess()) {
                err.println("ferry receive: cannot listen on " + listen + ": " + bound.cause().getMessage());
                return 1;
            }
            InetSocketAddress local = (InetSocketAddress) bound.channel().localAddress();
            String host = local.getAddress() instanceof Inet6Address ? "[" + local.getAddress().getHostAddress() + "]"
                    : local.getAddress().getHostAddress();
            PrintWriter human = json ? err : out;
            human.printf(Locale.ROOT, "receiving into %s on %s://%s:%d%n", dir.toAbsolutePath(), asked.scheme(), host, local.getPort());
            if (receiverTls != null) {
                human.printf(Locale.ROOT, "TLS certificate %s%s; senders: ferry send --tls --pin %s%s ...%n", receiverTls.fingerprint(),
                        cert == null ? " (self-signed, generated now)" : "", receiverTls.fingerprint(),
                        senderCheck != null ? " --cert FILE --key FILE" : "");
                human.printf(Locale.ROOT, "TLS engine: %s%n", quicTls ? "QUIC's own TLS 1.3 (BoringSSL)" : receiverTls.engine());
            }
            if (metrics != null) {
                InetSocketAddress m = metrics.address();
                String mhost = m.getAddress() instanceof Inet6Address ? "[" + m.getAddress().getHostAddress() + "]" : m.getAddress().getHostAddress();
                human.printf(Locale.ROOT, "metrics on http://%s:%d/metrics%n", mhost, m.getPort());
            }
            human.flush();
            if (keepPartialsDays > 0) {
                sweepPartials(Duration.ofMinutes(Math.round(keepPartialsDays * 24 * 60)), human, err);
            }
            if (once) {
                return firstSession.get();
            }
            bound.channel().closeFuture().await();
            return 0;
        } finally {
            ferry.close();
            if (metrics != null) {
                metrics.close();
            }
        }
    }

    private ReceiverEvents events(PrintWriter out, PrintWriter err, CompletableFuture<Integer> firstSession) {
        // the receiver's own progress line, on a terminal (not with --json, whose stdout a program reads)
        io.ferry.cli.progress.ReceiverStatus status = json ? null : io.ferry.cli.progress.ReceiverStatus.forConsole();
        return new ReceiverEvents() {
            @Override
            public void took(String peer, long bytes) {
                if (status != null) {
                    status.took(peer, bytes);
                }
            }

            @Override
            public void fileStarted(String peer, String name, long size, long resumedFrom) {
                if (resumedFrom > 0 && resumedFrom < size && !json) {
                    clearStatus();
                    synchronized (out) {
                        out.printf(Locale.ROOT, "resuming %s from %s after %s already here and verified%n", name,
                                peer.replaceFirst("^the sender at ", ""), Sizes.bytes(resumedFrom));
                        out.flush();
                    }
                }
            }

            private void clearStatus() {
                if (status != null) {
                    status.clear();
                }
            }

            @Override
            public void stored(FileOutcome f) {
                if (status != null) {
                    status.stored();
                }
                clearStatus();
                synchronized (out) {
                    if (json) {
                        out.println(JsonSummary.write(Map.of("event", f.status().name().toLowerCase(Locale.ROOT), "name", f.name(),
                                "bytes", f.size(), "transferred", f.transferred(), "resumedFrom", f.resumedFrom(), "checksum", f.checksum().label(), "digest", f.digestHex(),
                                "seconds", f.elapsed().toNanos() / 1e9, "storedAt", f.storedAt().map(Path::toString).orElse(""))));
                    } else if (f.status() == FileOutcome.Status.ALREADY_PRESENT) {
                        out.println("already present: " + f.name() + " (" + Sizes.bytes(f.size()) + "), " + f.checksum().label() + " "
                                + f.digestHex() + " verified");
                    } else {
                        // A line per file, so concatenated rather than printf'ed (see Sizes)
                        out.println("received " + f.name() + " (" + Sizes.bytes(f.size()) + ") in " + Sizes.seconds(f.elapsed().toNanos() / 1e9)
                                + " at " + Sizes.rate(f.bytesPerSecond())
                                + (f.resumedFrom() > 0 ? " (resumed after " + Sizes.bytes(f.resumedFrom()) + ")" : "")
                                + ", " + f.checksum().label() + " " + f.digestHex() + " verified, stored as "
                                + f.storedAt().map(Path::toString).orElse("?"));
                    }
                    out.flush();
                }
            }

            @Override
            public void failed(String message) {
                report(Map.of("event", "failed", "message", message), message);
            }

            @Override
            public void fileFailed(String peer, String name, String message) {
                report(Map.of("event", "failed", "name", name, "peer", peer.replaceFirst("^the sender at ", ""), "message", message), message);
            }

            private void report(Map<String, Object> event, String message) {
                clearStatus();
                synchronized (out) {
                    if (json) {
                        out.println(JsonSummary.write(event));
                        out.flush();
                    }
                }
                err.println("ferry receive: " + message);
                err.flush();
            }

            @Override
            public void sessionEnded(String peer, boolean ok) {
                if (status != null) {
                    status.ended(peer);
                }
                firstSession.complete(ok ? 0 : 1);
            }
        };
    }

    /** Sweeps the abandoned partial files now and every day after, on a thread of its own (AbandonedPartials). */
    private void sweepPartials(Duration maxAge, PrintWriter human, PrintWriter err) {
        java.util.concurrent.ScheduledExecutorService sweeper = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "ferry-partials");
            t.setDaemon(true);
            return t;
        });
        sweeper.scheduleWithFixedDelay(() -> {
            try {
                AbandonedPartials.Sweep sweep = AbandonedPartials.sweep(dir, maxAge, java.time.Instant.now());
                synchronized (human) {
                    sweep.removed().forEach(line -> human.println(line));
                    String kept = sweep.keptLine(maxAge);
                    if (kept != null) {
                        human.println(kept);
                    }
                    human.flush();
                }
            } catch (IOException | RuntimeException e) {
                err.println("ferry receive: cannot sweep " + dir + " for abandoned partial files: " + e.getMessage());
                err.flush();
            }
        }, 0, 1, java.util.concurrent.TimeUnit.DAYS);
    }

    private SenderCertificateCheck senderCheck() throws IOException {
        if (allow.isEmpty() && clientCa == null) {
            if (requireClientCert) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "--require-client-cert needs --allow sha256:... or --client-ca FILE to say which senders to let in");
            }
            return null;
        }
        try {
            return SenderCertificateCheck.of(allow, clientCa);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--allow: " + e.getMessage());
        }
    }

    private SenderLimits limits() {
        if (maxBytes == null && maxFiles == null) {
            return SenderLimits.NONE;
        }
        long bytes = Long.MAX_VALUE;
        if (maxBytes != null) {
            try {
                bytes = io.ferry.cli.progress.Sizes.parse(maxBytes);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--max-bytes: " + e.getMessage());
            }
        }
        try {
            return new SenderLimits(bytes, maxFiles == null ? Integer.MAX_VALUE : maxFiles);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), (maxFiles != null && maxFiles <= 0 ? "--max-files: " : "--max-bytes: ")
                    + e.getMessage());
        }
    }
}
