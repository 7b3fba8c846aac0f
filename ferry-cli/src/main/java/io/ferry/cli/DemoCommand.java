package io.ferry.cli;

import io.ferry.cli.progress.Sizes;
import io.ferry.cli.report.JsonSummary;
import io.ferry.cli.transfer.FileOutcome;
import io.ferry.cli.transfer.LoopbackTransfer;
import io.ferry.cli.transfer.ProgressListener;
import io.ferry.cli.transfer.SendPlan;
import io.ferry.cli.transfer.SendSettings;
import io.ferry.cli.transfer.SessionResult;
import io.ferry.cli.transfer.TransferFailedException;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.Transports;
import io.ferry.transport.striped.StripedChannelOption;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/** {@code ferry demo}: a real transfer over every installed transport on loopback, side by side. */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Move a generated file over every installed transport on loopback, in one process, verify it, "
                + "and print a side-by-side table. Needs no network setup.")
final class DemoCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--size", paramLabel = "SIZE", defaultValue = "64M",
            description = "Size of the generated file (default: ${DEFAULT-VALUE}).")
    String size;

    @Option(names = "--transports", paramLabel = "SCHEME", split = ",",
            description = "Only these transports (default: every installed one).")
    List<String> only;

    @Option(names = "--json", description = "Print the results as JSON (one object per transport) instead of a table.")
    boolean json;

    /**
     * The channel {@code ferry send} and {@code ferry receive} use: one striped stream, the client's hello sent at
     * once. The demo moves its file the way a send does, and the launcher's class-data archive, made from a demo
     * run, holds the classes a send loads (without them a small send started about 20 ms later).
     */
    private static final ChannelOptions AS_SEND_AND_RECEIVE = ChannelOptions.builder()
            .set(FerryChannelOption.STREAMS, 1).set(StripedChannelOption.EAGER_HELLO, true).build();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        long bytes;
        try {
            bytes = Sizes.parse(size);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--size: " + e.getMessage());
        }
        Path work = Files.createTempDirectory("ferry-demo");
        try (Transports ferry = Transports.create()) {
            List<String> schemes = only != null ? only : ferry.transportNames();
            for (String scheme : schemes) {
                if (!ferry.schemes().contains(scheme)) {
                    throw new CommandLine.ParameterException(spec.commandLine(),
                            "--transports: '" + scheme + "' is not installed; installed: " + String.join(", ", ferry.schemes()));
                }
            }
            Path file = work.resolve("demo-" + size + ".bin");
            generate(file, bytes);
            PrintWriter human = json ? spec.commandLine().getErr() : out;
            human.printf(Locale.ROOT, "ferry demo: moving a %s file over %s on loopback%n", Sizes.bytes(bytes), String.join(", ", schemes));
            human.flush();
            List<String[]> rows = new ArrayList<>();
            List<Object> summaries = new ArrayList<>();
            boolean allOk = true;
            for (String scheme : schemes) {
                Path into = Files.createDirectories(work.resolve("received-" + scheme));
                try {
                    LoopbackTransfer.Outcome outcome = LoopbackTransfer.run(ferry, scheme, AS_SEND_AND_RECEIVE,
                            SendPlan.single(file, file.getFileName().toString()), into, SendSettings.defaults(),
                            // No progress bars: each run takes seconds and the table says how it went; bars
                            // redrawn with ANSI escapes would leave them in any captured or logged output.
                            ProgressListener.NONE, 600);
                    FileOutcome received = outcome.received().get(0);
                    Path stored = received.storedAt().orElseThrow();
                    // Verified three ways: both ends computed the same checksum, and the stored copy is the source byte for byte.
                    boolean same = Arrays.equals(received.digest().orElseThrow(), outcome.sent().files().get(0).digest().orElseThrow())
                            && Files.size(stored) == bytes && Files.mismatch(file, stored) == -1;
                    allOk &= same;
                    SessionResult sent = outcome.sent();
                    TransportStatistics stats = sent.statistics().orElseThrow();
                    summaries.add(JsonSummary.of(scheme + "://127.0.0.1", scheme, sent));
                    rows.add(new String[]{scheme, stats.implementation(), Sizes.bytes(bytes),
                            Sizes.seconds(sent.elapsed().toNanos() / 1e9), Sizes.rate(sent.bytesPerSecond()),
                            String.format(Locale.ROOT, "%.0f Mbit/s", sent.bytesPerSecond() * 8 / 1e6),
                            stats.smoothedRtt().map(d -> String.format(Locale.ROOT, "%.2f ms", d.toNanos() / 1e6)).orElse("n/a"),
                            stats.retransmissions().isPresent() ? String.valueOf(stats.retransmissions().getAsLong()) : "n/a",
                            same ? "yes" : "NO"});
                    Files.deleteIfExists(stored);
                } catch (TransferFailedException e) {
                    allOk = false;
                    summaries.add(java.util.Map.of("transport", scheme, "ok", false, "error", String.valueOf(e.getMessage())));
                    rows.add(new String[]{scheme, "-", Sizes.bytes(bytes), "-", "-", "-", "-", "-", "FAILED: " + e.getMessage()});
                }
            }
            if (json) {
                out.println(JsonSummary.write(summaries));
                out.flush();
            } else {
                printTable(out, new String[]{"transport", "io", "size", "time", "rate", "rate", "rtt", "retransmissions", "verified"}, rows);
            }
            return allOk ? 0 : 1;
        } finally {
            deleteRecursively(work);
        }
    }


    private static void generate(Path file, long bytes) throws IOException {
        SplittableRandom random = new SplittableRandom(42);
        byte[] block = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long left = bytes; left > 0; left -= block.length) {
                random.nextBytes(block);
                out.write(block, 0, (int) Math.min(block.length, left));
            }
        }
    }

    static void printTable(PrintWriter out, String[] header, List<String[]> rows) {
        int[] width = new int[header.length];
        for (int i = 0; i < header.length; i++) {
            width[i] = header[i].length();
            for (String[] row : rows) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < header.length; i++) {
            line.append(String.format(Locale.ROOT, "%-" + width[i] + "s  ", header[i]));
        }
        out.println(line.toString().stripTrailing());
        for (String[] row : rows) {
            line.setLength(0);
            for (int i = 0; i < row.length; i++) {
                line.append(String.format(Locale.ROOT, "%-" + width[i] + "s  ", row[i]));
            }
            out.println(line.toString().stripTrailing());
        }
        out.flush();
    }

    private static void deleteRecursively(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
