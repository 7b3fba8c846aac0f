package io.ferry.cli;

import io.ferry.cli.progress.Sizes;
import io.ferry.cli.progress.TerminalProgress;
import io.ferry.cli.report.JsonSummary;
import io.ferry.cli.tls.SenderTls;
import io.ferry.transport.quic.QuicOption;
import io.ferry.transport.quic.QuicTransport;
import io.ferry.cli.transfer.FileOutcome;
import io.ferry.cli.transfer.FileSendSession;
import io.ferry.cli.transfer.Checksum;
import io.ferry.cli.transfer.HashCache;
import io.ferry.cli.transfer.Failures;
import io.ferry.cli.transfer.ProgressListener;
import io.ferry.cli.transfer.SendPlan;
import io.ferry.cli.transfer.SendSettings;
import io.ferry.cli.transfer.SessionResult;
import io.ferry.cli.transfer.SharedSecret;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.TransportUri;
import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/** {@code ferry send PATH... URI}. */
@Command(name = "send", mixinStandardHelpOptions = true, sortOptions = false,
        customSynopsis = "ferry send [--tls [--pin=sha256:HEX | --ca=FILE] [--cert=FILE --key=FILE]] [--token-file=FILE] [--opt=NAME=VALUE]... [--json] [-v | -q] [--streams=N] [--parallel=N] "
                + "[--chunk-size=SIZE] [--limit-rate=RATE] [--checksum=NAME] [--no-hash-cache] [--no-zero-copy] [--no-preserve] [--as=NAME] PATH... URI",
        description = {"Send files and whole directories (structure preserved) to a ferry receiver, several files in flight on one "
                + "connection, and wait until the receiver has verified every one (CRC-32C, or SHA-256 with --checksum sha256).",
                "An interrupted transfer resumes: sending again skips what the receiver already holds and verified, "
                        + "and files it already has with the same checksum."},
        footer = {"", "Examples:",
                "  ferry send big.iso tcp://host:9000",
                "  ferry send photos/ notes.txt utp://host:9000 --json",
                "  ferry send --tls --pin sha256:9f86d0...  big.iso tcp://host:9443",
                "  ferry send --opt congestion-control=bbr --opt send-buffer-size=8M big.iso tcp://host:9000",
                "  ferry send --token-file ~/.ferry-token big.iso tcp://host:9000",
                "  ferry send --streams 4 big.iso tcp://far-away:9000"})
final class SendCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "PATH... URI", hideParamSyntax = true,
            description = "Files and directories to send, then the receiver, e.g. tcp://host:9000, utp://host:9000.")
    List<String> arguments;

    @Option(names = "--tls", description = "Use TLS (trusting the JDK's certificate authorities unless --pin or --ca is given).")
    boolean tls;

    @Option(names = "--pin", paramLabel = "sha256:HEX",
            description = "Trust exactly the receiver certificate with this SHA-256 fingerprint (implies --tls); "
                    + "ferry receive --tls prints it.")
    String pin;

    @Option(names = "--ca", paramLabel = "FILE", description = "Trust certificates issued by the CA certificate(s) in this PEM file (implies --tls).")
    Path ca;

    @Option(names = "--cert", paramLabel = "FILE",
            description = "PEM certificate this sender presents to a receiver that lets in chosen senders only "
                    + "(ferry receive --allow / --client-ca; implies --tls). ferry keygen makes one. Needs --key.")
    Path cert;

    @Option(names = "--key", paramLabel = "FILE", description = "PEM PKCS#8 private key of --cert.")
    Path key;

    @Option(names = "--token-file", paramLabel = "FILE",
            description = "Send only to a receiver holding the shared secret in FILE (its --token-file), proving that this "
                    + "sender holds it too; nothing is offered before both proofs checked out. The secret itself is never sent.")
    Path tokenFile;

    @Option(names = "--opt", paramLabel = "NAME=VALUE",
            description = "A transport option, e.g. send-buffer-size=8M, packet-size=1400, congestion-control=bbr, "
                    + "target-delay=50ms (uTP), connect-timeout=5s. Repeatable; a wrong name lists the transport's options.")
    List<String> opts = new ArrayList<>();

    @Option(names = {"-v", "--verbose"}, description = "A line for every file sent (by default only for a single file; "
            + "several get one summary line).")
    boolean verbose;

    @Option(names = {"-q", "--quiet"}, description = "No progress and no result lines: only errors (and --json's summary).")
    boolean quiet;

    @Option(names = "--json", description = "Print a JSON summary (bytes, time, rate, RTT, retransmissions, loss, per file) on stdout; "
            + "a send that fails before its session prints one too, with \"ok\": false and the \"error\".")
    boolean json;

    @Option(names = "--no-preserve", description = "Do not keep the permission bits and modification times of files and "
            + "directories (by default they are kept, as rsync -a keeps them; owners never are).")
    boolean noPreserve;

    @Option(names = "--parallel", paramLabel = "N", defaultValue = "4", description = "Files streaming at once on the connection, their chunks interleaved (default: ${DEFAULT-VALUE}); up to 64 more (at most 64 MiB of them) are offered and prepared ahead.")
    int parallel;

    @Option(names = "--chunk-size", paramLabel = "SIZE", defaultValue = "1M",
            description = "Bytes read and sent at a time (default: ${DEFAULT-VALUE}).")
    String chunkSize;

    @Option(names = "--streams", paramLabel = "N", defaultValue = "1",
            description = "Connections that carry the session, 1 to 64 (default: ${DEFAULT-VALUE}): one striped channel over N "
                    + "connections of the transport, for paths where one connection is slow (random loss, or a long RTT with "
                    + "small socket buffers). The receiver needs no flag.")
    int streams;

    @Option(names = "--limit-rate", paramLabel = "RATE", description = "Send at most this many bytes per second, e.g. 10M.")
    String limitRate;

    @Option(names = "--checksum", paramLabel = "NAME", converter = ChecksumConverter.class, completionCandidates = ChecksumNames.class, defaultValue = "crc32c",
            description = "How both ends check each file: crc32c (default; CRC-32C, catches corruption at ~60 GB/s) or sha256 "
                    + "(a cryptographic digest, the value sha256sum prints; ~1.4 GB/s, slower than a fast link).")
    Checksum checksum;

    @Option(names = "--no-hash-cache",
            description = "Read every file afresh for its checksum. By default a file's checksum is remembered in "
                    + "~/.cache/ferry/CHECKSUM-cache ($XDG_CACHE_HOME) with its size, modification time and inode, and used "
                    + "again while all three match.")
    boolean noHashCache;

    @Option(names = "--no-zero-copy",
            description = "Read file content into the JVM before sending it. By default plain TCP with one stream sends it "
                    + "with sendfile, straight from the file to the socket.")
    boolean noZeroCopy;

    @Option(names = "--as", paramLabel = "NAME", description = "Store a single file under this name (a '/'-separated relative path).")
    String as;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter human = json ? err : out;
        if (arguments.size() < 2) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "send needs at least one PATH and then the receiver's URI, e.g. ferry send big.iso tcp://host:9000");
        }
        List<Path> paths = new ArrayList<>();
        for (String a : arguments.subList(0, arguments.size() - 1)) {
            paths.add(Path.of(a));
        }
        String uri = arguments.get(arguments.size() - 1);
        SendSettings settings = settings();
        if (as != null && paths.size() != 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--as names a single file, but " + paths.size() + " paths were given");
        }
        if (settings.hashCache() != null) {
            settings.hashCache().loadInBackground();
        }
        // the files are listed on a thread of their own while this one sets up the transport (on a fresh JVM both
        // run interpreted for tens of milliseconds); what the listing finds wrong is reported after the URI's errors
        FutureTask<SendPlan> listing = new FutureTask<>(() -> as != null ? SendPlan.single(paths.get(0), as) : SendPlan.of(paths));
        Thread lister = new Thread(listing, "ferry-list");
        lister.setDaemon(true);
        lister.start();
        try (Transports ferry = Transports.create()) {
            TransportUri target = uriOrHint(ferry, uri);
            // the sender's first bytes go with the striping hello, a round trip sooner; a listener that is not a ferry
            // receiver is named from what it answers all the same (Failures.describe)
            ChannelOptions plainOptions = TransportArgs.striped(spec, TransportArgs.options(spec, ferry, target, opts), streams)
                    .toBuilder().set(io.ferry.transport.striped.StripedChannelOption.EAGER_HELLO, true).build();
            SenderTls chosenTls;
            try {
                chosenTls = tls();
            } catch (IOException e) { // unreadable certificates or key
                return failed(out, err, uri, target, null, e.getMessage());
            }
            // QUIC carries TLS itself: the sender's trust and identity become QUIC's, not a second TLS inside it
            boolean quicTls = chosenTls != null && QuicTransport.NAME.equals(target.scheme());
            ChannelOptions options = quicTls
                    ? plainOptions.toBuilder().set(QuicOption.CLIENT_TLS, chosenTls.quic(target.host())).build() : plainOptions;
            SenderTls senderTls = quicTls ? null : chosenTls;
            SharedSecret token = null;
            if (tokenFile != null) {
                try {
                    token = SharedSecret.read(tokenFile);
                } catch (SharedSecret.UnusableSecretException e) {
                    return failed(out, err, uri, target, null, "--token-file: " + e.getMessage());
                }
            }
            SendPlan plan;
            try {
                plan = listed(listing);
            } catch (java.nio.file.NoSuchFileException e) {
                return failed(out, err, uri, target, null, e.getFile() + ": no such file or directory");
            } catch (IOException e) {
                return failed(out, err, uri, target, null, e.getMessage());
            }
            if (noPreserve) {
                plan = plan.withoutAttributes();
            }
            ProgressListener progress = quiet ? ProgressListener.NONE : TerminalProgress.forConsole();
            FileSendSession session = new FileSendSession(plan, settings, progress);
            if (token != null) {
                session.useToken(token);
            }
            String identity = chosenTls == null ? null : chosenTls.identityFingerprint();
            session.presenting(identity);
            ChannelFuture connected = ferry.connect(uri, new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    if (senderTls != null) {
                        senderTls.addTo(ch.pipeline(), target.host(), target.port());
                    }
                    session.addTo(ch.pipeline());
                }
            }, options);
            connected.await();
            if (!connected.isSuccess()) {
                progress.sessionFinished();
                Throwable cause = quicTls && chosenTls.quicRejection() != null ? chosenTls.quicRejection() : connected.cause();
                return failed(out, err, uri, target, plan, cause instanceof io.ferry.transport.striped.NotStripedException
                        ? uri + " " + Failures.notFerry((io.ferry.transport.striped.NotStripedException) cause)
                        : cause instanceof io.ferry.transport.striped.NoGreetingException
                        ? uri + " " + Failures.notFerry((io.ferry.transport.striped.NoGreetingException) cause)
                        : "cannot connect to " + uri + ": " + Failures.describe(cause, identity));
            }
            SessionResult result = session.result().get();
            if (settings.hashCache() != null) {
                settings.hashCache().flush(); // before the process exits: remember() writes at most once a second
            }
            report(human, err, uri, result);
            for (String skip : plan.skipped()) {
                err.println("ferry send: " + skip); // a link out of the tree, a socket: named, never dropped in silence
            }
            if (json) {
                out.println(JsonSummary.write(JsonSummary.of(uri, target.scheme(), result)
                        .withStreams(streams, JsonSummary.perStream(connected.channel()))));
            }
            out.flush();
            err.flush();
            return result.ok() && plan.skipped().isEmpty() ? 0 : 1;
        }
    }

    /**
     * A send that failed before its session: the reason on stderr and, with {@code --json}, the one JSON object the
     * option promises on stdout ({@code "ok": false}), so that a script reads every outcome the same way.
     */
    private int failed(PrintWriter out, PrintWriter err, String uri, TransportUri target, SendPlan plan, String reason) {
        err.println("ferry send: " + reason);
        if (json) {
            out.println(JsonSummary.write(JsonSummary.failure(uri, target.scheme(), reason,
                    plan == null ? 0 : plan.entries().size(), plan == null ? 0 : plan.totalBytes())));
        }
        out.flush();
        err.flush();
        return 1;
    }

    /** The listing's plan, or what stopped it as it was thrown. */
    private static SendPlan listed(FutureTask<SendPlan> listing) throws IOException, InterruptedException {
        try {
            return listing.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException) {
                throw (IOException) e.getCause();
            }
            if (e.getCause() instanceof RuntimeException) {
                throw (RuntimeException) e.getCause();
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private TransportUri uriOrHint(Transports ferry, String uri) {
        try {
            return TransportArgs.uri(spec, ferry, "URI", uri, false);
        } catch (CommandLine.ParameterException e) {
            if (!uri.contains("://") && arguments.get(0).contains("://")) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage() + " (the URI comes last: ferry send PATH... URI)", e);
            }
            throw e;
        }
    }

    /**
     * One line per file, then the totals. Built as one text and written at once: printed line by line (a
     * formatter and a flush each) it took 50 ms of a 4,096-file send's 0.8 s.
     */
    private void report(PrintWriter human, PrintWriter err, String uri, SessionResult result) {
        StringBuilder lines = new StringBuilder();
        String nl = System.lineSeparator();
        boolean each = !quiet && (verbose || result.files().size() == 1);
        java.util.Map<String, Integer> alike = new java.util.LinkedHashMap<>();
        for (FileOutcome f : result.files()) {
            switch (f.status()) {
                case STORED:
                    if (each) {
                        lines.append("sent ").append(f.name()).append(" (").append(Sizes.bytes(f.size())).append(") to ").append(uri)
                                .append(" in ").append(Sizes.seconds(f.elapsed().toNanos() / 1e9))
                                .append(meaningfulRate(f.size() - f.resumedFrom(), f.elapsed(), f.bytesPerSecond()))
                                .append(f.resumedFrom() > 0 ? ", resumed after " + Sizes.bytes(f.resumedFrom()) : "")
                                .append(", ").append(f.checksum().label()).append(' ').append(f.digestHex()).append(" verified by the receiver").append(nl);
                    }
                    break;
                case ALREADY_PRESENT:
                    if (each) {
                        lines.append(f.name()).append(" (").append(Sizes.bytes(f.size())).append(") is already at the receiver with ")
                                .append(f.checksum().label()).append(' ').append(f.digestHex()).append("; nothing sent").append(nl);
                    }
                    break;
                case FAILED:
                default:
                    if (result.failure().isEmpty() && alike.merge(f.message().replace(f.name(), "\0"), 1, Integer::sum) <= SAME_REASON_LINES) {
                        problem(human, lines, err, "ferry send: " + f.message());
                    }
            }
        }
        // 53 files refused by --max-files had made 53 lines that differ by the name alone
        alike.values().stream().filter(n -> n > SAME_REASON_LINES).forEach(n -> problem(human, lines, err,
                "ferry send: ... and " + (n - SAME_REASON_LINES) + " more files refused for the same reason"));
        result.failure().ifPresent(message -> problem(human, lines, err, "ferry send: " + message));
        long failed = result.files().stream().filter(f -> !f.ok()).count();
        long present = result.files().stream().filter(f -> f.status() == FileOutcome.Status.ALREADY_PRESENT).count();
        if (result.files().size() > 1 && !quiet) {
            // one line a person reads at 80 columns: what the receiver verified, and what moved how fast
            lines.append(failed == 0 ? "" : (result.files().size() - failed) + " of ").append(result.files().size()).append(" files (")
                    .append(Sizes.bytes(result.totalSize())).append(") verified by the receiver in ")
                    .append(Sizes.seconds(result.elapsed().toNanos() / 1e9))
                    .append(meaningfulRate(result.transferred(), result.elapsed(), result.bytesPerSecond()))
                    .append(present == 0 ? "" : ", " + present + " already there").append(nl);
        }
        human.print(lines);
        human.flush();
    }

    /** Failures that differ by the file's name alone: this many lines each, then one that counts the rest. */
    static final int SAME_REASON_LINES = 2;

    /**
     * {@code " at 112.4 MiB/s"} where a rate says something about the path: a mebibyte or more moved
     * ({@code 3 B in 0.7s at 4 B/s} says only how long the handshake took).
     */
    static String meaningfulRate(long moved, java.time.Duration elapsed, double bytesPerSecond) {
        return moved >= (1 << 20) && !elapsed.isZero() ? " at " + Sizes.rate(bytesPerSecond) : "";
    }

    /** Writes a failure line after the lines gathered so far, which go first (both may go to standard error). */
    private static void problem(PrintWriter human, StringBuilder lines, PrintWriter err, String line) {
        human.print(lines);
        human.flush();
        lines.setLength(0);
        err.println(line);
    }

    private SendSettings settings() {
        SendSettings settings = SendSettings.defaults().withZeroCopy(!noZeroCopy).withChecksum(checksum)
                .withHashCache(noHashCache ? null : HashCache.inUserCacheDirectory(checksum));
        try {
            settings = settings.withChunkSize((int) Math.min(Integer.MAX_VALUE, Sizes.parse(chunkSize)));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--chunk-size: " + e.getMessage());
        }
        try {
            settings = settings.withParallelFiles(parallel);
            if (limitRate != null) {
                long rate = Sizes.parse(limitRate.replaceAll("(?i)/s$", ""));
                if (rate <= 0) {
                    throw new IllegalArgumentException("'" + limitRate + "' must be a positive rate, e.g. 10M");
                }
                settings = settings.withRateLimit(rate);
            }
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        return settings;
    }

    private SenderTls tls() throws IOException {
        if (pin != null && ca != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give either --pin or --ca, not both");
        }
        if ((cert == null) != (key == null)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--cert and --key go together");
        }
        if (pin != null) {
            try {
                return SenderTls.pinned(pin, cert, key);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--pin: " + e.getMessage());
            }
        }
        if (ca != null) {
            return SenderTls.trusting(ca, cert, key);
        }
        return tls || cert != null ? SenderTls.systemTrust(cert, key) : null;
    }
}
