package io.ferry.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ferry.cli.InstalledTransports;
import io.ferry.transport.Transports;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Drives the ferry CLI as a user would: separate JVM processes, real files, loopback, every installed transport. */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class FerryCliTest {

    private static final Pattern LISTENING = Pattern.compile("receiving into .* on ([a-z]+://[^ ]+)");
    private static final Pattern METRICS = Pattern.compile("metrics on (http://[^ ]+/metrics)");
    private static final Pattern PIN = Pattern.compile("TLS certificate (sha256:[0-9a-f]{64})");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    /** A running ferry process with its output collected. */
    private static final class Run {
        final Process process;
        final List<String> out = new ArrayList<>();
        final List<String> err = new ArrayList<>();
        final BufferedReader stdout;
        private final Thread errReader;

        Run(Process process) {
            this.process = process;
            this.stdout = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            this.errReader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) {
                        synchronized (err) {
                            err.add(line);
                        }
                    }
                } catch (IOException ignored) {
                    // process ended
                }
            });
            errReader.setDaemon(true);
            errReader.start();
        }

        String readLine() throws IOException {
            String line = stdout.readLine();
            if (line != null) {
                out.add(line);
            }
            return line;
        }

        int finish() throws Exception {
            for (String line; (line = readLine()) != null; ) {
                // collect the rest
            }
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "ferry exits by itself");
            // the process is gone, so its stderr ends: wait until the reader has seen all of it, or the
            // checks on stderr that follow could run on part of it
            errReader.join(TimeUnit.SECONDS.toMillis(10));
            assertFalse(errReader.isAlive(), "stderr was read to its end");
            return process.exitValue();
        }

        String errText() {
            synchronized (err) {
                return String.join("\n", err);
            }
        }

        boolean errContains(String text) {
            return errText().contains(text);
        }

        void stop() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
    }

    /** Every process a test started: none outlives its test. */
    private static final List<Process> STARTED = new java.util.concurrent.CopyOnWriteArrayList<>();

    @org.junit.jupiter.api.AfterEach
    void stopLeftovers() throws InterruptedException {
        for (Process p : STARTED) {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        STARTED.clear();
    }

    private static Run ferry(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // as the launcher's jar manifest does: JDK 22+ warns of native access otherwise (JDK 17 takes the flag too)
                "-XX:TieredStopAtLevel=1", "-Xshare:auto", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), FerryCli.class.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).start();
        STARTED.add(process);
        return new Run(process);
    }

    private Path file(String name, int size) throws IOException {
        byte[] data = new byte[size];
        new SplittableRandom(size + name.hashCode()).nextBytes(data);
        Path p = tmp.resolve(name);
        Files.createDirectories(p.getParent());
        return Files.write(p, data);
    }

    private static String awaitListening(Run receiver) throws IOException {
        for (String line; (line = receiver.readLine()) != null; ) {
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                return m.group(1);
            }
        }
        throw new AssertionError("receiver never said where it listens; stderr: " + receiver.errText());
    }

    /** The fingerprint a TLS receiver prints after where it listens. */
    private static String awaitPin(Run receiver) throws IOException {
        for (String line; (line = receiver.readLine()) != null; ) {
            Matcher m = PIN.matcher(line);
            if (m.find()) {
                return m.group(1);
            }
        }
        throw new AssertionError("the receiver never printed its certificate's fingerprint; stderr: " + receiver.errText());
    }

    private static String scrape(java.net.http.HttpClient http, java.net.URI metrics) {
        try {
            return http.send(java.net.http.HttpRequest.newBuilder(metrics).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(20);
        }
    }

    // ------------------------------------------------------------------ transfers

    @ParameterizedTest
    @MethodSource("io.ferry.cli.InstalledTransports#schemes")
    void sendsFilesAndADirectoryTreeToAReceiverInAnotherProcess(String scheme) throws Exception {
        Path single = file("payload.bin", 3_000_000);
        Path tree = tmp.resolve("tree");
        file("tree/one.bin", 200_000);
        file("tree/sub/two.bin", 50_000);
        Files.write(tree.resolve("sub/empty"), new byte[0]);
        Path inbox = tmp.resolve("inbox-" + scheme);
        Run receiver = ferry("receive", "--listen", scheme + "://127.0.0.1:0", "--dir", inbox.toString(), "--once");
        String uri = awaitListening(receiver);
        Run sender = ferry("send", single.toString(), tree.toString(), uri, "--json");
        assertEquals(0, sender.finish(), () -> "send succeeds; stderr: " + sender.errText());
        JsonNode summary = JSON.readTree(String.join("\n", sender.out));
        assertTrue(summary.get("ok").asBoolean());
        assertEquals(4, summary.get("files").asInt());
        assertEquals(3_250_000, summary.get("bytes").asLong());
        assertEquals(scheme, summary.get("transport").asText());
        assertTrue(summary.get("connection").get("bytesSent").asLong() >= 3_250_000, summary.toString());
        assertEquals(4, summary.get("perFile").size());
        for (JsonNode f : summary.get("perFile")) {
            assertEquals("stored", f.get("status").asText(), f.toString());
            assertEquals("crc32c", f.get("checksum").asText(), "the default checksum");
            assertEquals(8, f.get("digest").asText().length());
        }
        assertTrue(sender.errText().startsWith("4 files (3.1 MiB) verified by the receiver in "),
                "one summary line for several files, on stderr with --json: " + sender.errText());
        assertEquals(1, sender.errText().lines().count(), "no line per file without --verbose: " + sender.errText());
        assertEquals(0, receiver.finish(), () -> "receive --once exits 0; stderr: " + receiver.errText());
        assertTrue(receiver.out.stream().anyMatch(l -> l.startsWith("received tree/sub/two.bin")), receiver.out.toString());
        assertArrayEquals(Files.readAllBytes(single), Files.readAllBytes(inbox.resolve("payload.bin")));
        assertArrayEquals(Files.readAllBytes(tree.resolve("one.bin")), Files.readAllBytes(inbox.resolve("tree/one.bin")));
        assertArrayEquals(Files.readAllBytes(tree.resolve("sub/two.bin")), Files.readAllBytes(inbox.resolve("tree/sub/two.bin")));
        assertEquals(0, Files.size(inbox.resolve("tree/sub/empty")));
        assertFalse(sender.errText().contains("Exception"), "no stack traces for users: " + sender.errText());
    }

    @ParameterizedTest
    @MethodSource("io.ferry.cli.InstalledTransports#schemes")
    void resumesAfterAKilledTransferFromWhatWasAlreadyReceived(String scheme) throws Exception {
        Path source = file("resume.bin", 24 << 20);
        Path inbox = tmp.resolve("inbox-" + scheme);
        Path partial = inbox.resolve(".resume.bin.ferry-part");
        // Both processes die mid-transfer (as in a crash or a power cut), then both are started again.
        Run receiver = ferry("receive", "--listen", scheme + "://127.0.0.1:0", "--dir", inbox.toString());
        Run slow = ferry("send", "--limit-rate", "4M", source.toString(), awaitListening(receiver));
        await("part of the file to arrive", () -> size(partial) >= (2 << 20));
        receiver.process.destroyForcibly().waitFor();
        slow.process.destroyForcibly().waitFor();
        long kept = size(partial);
        assertTrue(kept > 0 && kept < (24 << 20), "a partial file is kept: " + kept);
        assertFalse(Files.exists(inbox.resolve("resume.bin")), "nothing under the final name before it is verified");

        Run again = ferry("receive", "--listen", scheme + "://127.0.0.1:0", "--dir", inbox.toString(), "--once");
        Run resumed = ferry("send", "--streams", "3", source.toString(), awaitListening(again), "--json"); // resumes striped, too
        assertEquals(0, resumed.finish(), resumed::errText);
        assertEquals(0, again.finish(), again::errText);
        JsonNode file = JSON.readTree(String.join("\n", resumed.out)).get("perFile").get(0);
        assertTrue(file.get("resumedFrom").asLong() > 0, "resumed, not restarted: " + file);
        assertEquals((24 << 20) - file.get("resumedFrom").asLong(), file.get("transferred").asLong(), file.toString());
        assertTrue(resumed.errText().contains("resume.bin: resuming after"), resumed.errText());
        assertTrue(again.out.stream().anyMatch(l -> l.startsWith("resuming resume.bin")), again.out.toString());
        assertArrayEquals(Files.readAllBytes(source), Files.readAllBytes(inbox.resolve("resume.bin")));
        assertFalse(Files.exists(partial));
    }

    @ParameterizedTest
    @MethodSource("io.ferry.cli.InstalledTransports#schemes")
    void sendsOverFourStreamsToAReceiverWithNoFlagAndReportsEachStream(String scheme) throws Exception {
        Path source = file("striped.bin", 5_000_000);
        Path inbox = tmp.resolve("inbox-striped-" + scheme);
        Run receiver = ferry("receive", "--listen", scheme + "://127.0.0.1:0", "--dir", inbox.toString(), "--once");
        Run sender = ferry("send", "--streams", "4", source.toString(), awaitListening(receiver), "--json");
        assertEquals(0, sender.finish(), sender::errText);
        assertEquals(0, receiver.finish(), receiver::errText);
        JsonNode summary = JSON.readTree(String.join("\n", sender.out));
        assertEquals(4, summary.get("streams").asInt(), summary.toString());
        assertEquals(4, summary.get("perStream").size(), summary.toString());
        long carried = 0;
        for (JsonNode stream : summary.get("perStream")) {
            carried += stream.get("bytesSent").asLong();
        }
        assertTrue(carried >= 5_000_000, "the streams together carried the file: " + summary);
        assertEquals("stored", summary.get("perFile").get(0).get("status").asText());
        assertArrayEquals(Files.readAllBytes(source), Files.readAllBytes(inbox.resolve("striped.bin")));
    }

    @Test
    void aSendersFileAndByteLimitsHoldAndWhatIsRefusedIsNotWritten() throws Exception {
        Path inbox = tmp.resolve("inbox-limits");
        Run receiver = ferry("receive", "--listen", "tcp://127.0.0.1:0", "--dir", inbox.toString(), "--max-files", "2", "--max-bytes", "1M");
        try {
            String uri = awaitListening(receiver);
            Run first = ferry("send", file("one.bin", 600_000).toString(), uri);
            assertEquals(0, first.finish(), first::errText);
            Run again = ferry("send", file("one.bin", 600_000).toString(), uri); // the same file again counts once
            assertEquals(0, again.finish(), again::errText);
            Run tooBig = ferry("send", file("big.bin", 500_000).toString(), uri);
            assertEquals(1, tooBig.finish());
            assertTrue(tooBig.errText().contains("big.bin (500000 bytes) refused: this receiver takes at most 1048576 bytes from one sender, "
                    + "and 600000 are taken by this one already"), tooBig.errText());
            Run small = ferry("send", file("two.bin", 1000).toString(), uri);
            assertEquals(0, small.finish(), small::errText);
            Run third = ferry("send", file("three.bin", 10).toString(), uri);
            assertEquals(1, third.finish());
            assertTrue(third.errText().contains("three.bin refused: this receiver takes at most 2 files from one sender"), third.errText());
            Path many = tmp.resolve("many");
            for (int i = 0; i < 12; i++) {
                file("many/m" + i + ".bin", 10 + i);
            }
            Run refusedAlike = ferry("send", many.toString(), uri);
            assertEquals(1, refusedAlike.finish());
            List<String> said = refusedAlike.err.stream().filter(l -> l.startsWith("ferry send:")).toList();
            assertEquals(3, said.size(), "two refusals and a count, not twelve alike lines: " + refusedAlike.errText());
            assertEquals("ferry send: ... and 11 more files refused for the same reason", said.get(2), "its directory counts as one");
            try (java.util.stream.Stream<Path> stored = Files.list(inbox)) {
                assertEquals(java.util.Set.of("one.bin", "two.bin"),
                        stored.map(p -> p.getFileName().toString()).collect(java.util.stream.Collectors.toSet()), "nothing refused was written");
            }
        } finally {
            receiver.stop();
        }
        Run bad = ferry("receive", "--listen", "tcp://127.0.0.1:0", "--dir", inbox.toString(), "--max-files", "0");
        assertEquals(2, bad.finish());
        assertTrue(bad.errText().contains("--max-files: the file limit per sender must be positive, got 0"), bad.errText());
    }

    @Test
    void theReceiverServesItsMetersToAPrometheusScraperDuringAndAfterATransfer() throws Exception {
        Path inbox = tmp.resolve("inbox-metrics");
        Run receiver = ferry("receive", "--listen", "tcp://127.0.0.1:0", "--dir", inbox.toString(), "--metrics-port", "0");
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        try {
            String uri = awaitListening(receiver);
            String line = receiver.readLine();
            Matcher m = METRICS.matcher(String.valueOf(line));
            assertTrue(m.find(), "the receiver says where its meters are: " + line);
            java.net.URI metrics = java.net.URI.create(m.group(1));
            // a sender connected and not done yet: its connection's transport meters are there
            try (Transports client = Transports.create()) {
                Channel open = client.connect(uri + "?streams=1", new ChannelInboundHandlerAdapter(),
                        io.ferry.transport.ChannelOptions.empty()).sync().channel();
                Pattern connected = Pattern.compile("(?m)^ferry_receiver_connections\\w* 1\\.0$");
                await("the receiver to report the open connection", () -> connected.matcher(scrape(http, metrics)).find());
                java.net.http.HttpResponse<String> during = http.send(java.net.http.HttpRequest.newBuilder(metrics).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
                assertEquals(200, during.statusCode());
                assertTrue(during.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"),
                        during.headers().toString());
                String body = during.body();
                assertTrue(Pattern.compile("(?m)^ferry_transport_bytes_received\\w*\\{[^}]*role=\"receiver\"[^}]*transport=\"tcp\"").matcher(body).find(), body);
                assertTrue(body.contains("ferry_transport_rtt"), body);
                open.close().sync();
            }
            Run sender = ferry("send", file("m.bin", 300_000).toString(), uri);
            assertEquals(0, sender.finish(), sender::errText);
            String after = http.send(java.net.http.HttpRequest.newBuilder(metrics).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(Pattern.compile("(?m)^ferry_receiver_files_total\\{status=\"stored\"} 1\\.0$").matcher(after).find(), after);
            assertTrue(Pattern.compile("(?m)^ferry_receiver_bytes_total 300000\\.0$").matcher(after).find(), after);
            java.net.http.HttpResponse<String> elsewhere = http.send(java.net.http.HttpRequest.newBuilder(metrics.resolve("/other")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(404, elsewhere.statusCode());
        } finally {
            receiver.stop();
        }
        Run badPort = ferry("receive", "--listen", "tcp://127.0.0.1:0", "--dir", inbox.toString(), "--metrics-port", "70000");
        assertEquals(2, badPort.finish());
        assertTrue(badPort.errText().contains("--metrics-port must be a port number from 0 to 65535 (got 70000)"), badPort.errText());
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Run inUse = ferry("receive", "--listen", "tcp://127.0.0.1:0", "--dir", inbox.toString(), "--metrics-port",
                    String.valueOf(taken.getLocalPort()));
            assertEquals(1, inUse.finish());
            assertTrue(inUse.errText().contains("ferry receive: cannot serve metrics on 127.0.0.1:" + taken.getLocalPort()), inUse.errText());
        }
    }

    @Test
    void streamsOutOfRangeIsAUsageErrorNamingTheOption() throws Exception {
        Run sender = ferry("send", "--streams", "65", file("s.bin", 10).toString(), "tcp://127.0.0.1:9");
        assertEquals(2, sender.finish());
        assertTrue(sender.errText().contains("--streams: STREAMS must be between 1 and 64 connections, got 65"), sender.errText());
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return -1;
        }
    }

    @ParameterizedTest
    @MethodSource("io.ferry.cli.InstalledTransports#schemes")
    void aPathTraversalNameIsRefusedAndNothingIsWrittenOutside(String scheme) throws Exception {
        Path source = file("evil.bin", 1000);
        Path inbox = tmp.resolve("inbox");
        Run receiver = ferry("receive", "--listen", scheme + "://127.0.0.1:0", "--dir", inbox.toString(), "--once");
        Run sender = ferry("send", "--as", "../escaped.bin", source.toString(), awaitListening(receiver));
        assertEquals(1, sender.finish());
        assertTrue(sender.errText().contains("refused file name: path component '..'"), sender.errText());
        assertEquals(1, receiver.finish());
        assertFalse(Files.exists(tmp.resolve("escaped.bin")), "nothing outside the receiving directory");
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"tcp", "utp"})
    void aTreeArrivesAsRsyncAKeepsItAndALinkOutOfItIsNamedNotDropped(String scheme) throws Exception {
        Path tree = tmp.resolve("kept");
        Path script = file("kept/bin/run.sh", 300);
        Files.setPosixFilePermissions(script, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-x---"));
        file("kept/docs/readme.txt", 2000);
        Files.createDirectories(tree.resolve("empty/deeper"));
        Files.setPosixFilePermissions(tree.resolve("docs"), java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(tree.resolve("empty"), java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        Files.createSymbolicLink(tree.resolve("docs/latest"), Path.of("readme.txt"));
        Files.createSymbolicLink(tree.resolve("escape"), Path.of("../../etc/passwd"));
        long t = 1_600_000_000_000L;
        try (java.util.stream.Stream<Path> all = Files.walk(tree)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.getFileAttributeView(p, java.nio.file.attribute.BasicFileAttributeView.class, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                        .setTimes(java.nio.file.attribute.FileTime.fromMillis(t += 1000), null, null);
            }
        }
        Path inbox = tmp.resolve("inbox-kept");
        Run receiver = ferry("receive", "--listen", scheme + "://127.0.0.1:0", "--dir", inbox.toString());
        try {
            String uri = awaitListening(receiver);
            Run sender = ferry("send", tree.toString(), uri);
            assertEquals(1, sender.finish(), "a link out of the tree is not sent, and the send says so: " + sender.errText());
            assertTrue(sender.errText().contains("ferry send: kept/escape -> ../../etc/passwd: a link out of the tree sent, not sent"),
                    sender.errText());
            assertEquals(1, sender.errText().lines().count(), sender.errText());
            await("the receiver to set the directories' times", () -> {
                try {
                    return Files.exists(inbox.resolve("kept/empty/deeper"))
                            && Files.getLastModifiedTime(inbox.resolve("kept")).equals(Files.getLastModifiedTime(tree));
                } catch (IOException e) {
                    return false;
                }
            });
            try (java.util.stream.Stream<Path> all = Files.walk(tree)) {
                for (Path p : all.toList()) {
                    Path there = inbox.resolve(tmp.relativize(p).toString());
                    String what = tmp.relativize(p).toString();
                    if (what.equals("kept/escape")) {
                        assertFalse(Files.exists(there, java.nio.file.LinkOption.NOFOLLOW_LINKS), "not sent");
                        continue;
                    }
                    java.nio.file.attribute.PosixFileAttributes mine = Files.readAttributes(p,
                            java.nio.file.attribute.PosixFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
                    java.nio.file.attribute.PosixFileAttributes theirs = Files.readAttributes(there,
                            java.nio.file.attribute.PosixFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
                    assertEquals(mine.isDirectory(), theirs.isDirectory(), what);
                    assertEquals(mine.isSymbolicLink(), theirs.isSymbolicLink(), what);
                    assertEquals(mine.lastModifiedTime(), theirs.lastModifiedTime(), "modification time of " + what);
                    if (mine.isSymbolicLink()) {
                        assertEquals(Files.readSymbolicLink(p), Files.readSymbolicLink(there), what);
                    } else {
                        assertEquals(mine.permissions(), theirs.permissions(), "permission bits of " + what);
                    }
                    if (mine.isRegularFile()) {
                        assertArrayEquals(Files.readAllBytes(p), Files.readAllBytes(there), what);
                    }
                }
            }
        } finally {
            receiver.stop();
        }
    }

    @ParameterizedTest
    @MethodSource("io.ferry.cli.InstalledTransports#schemes")
    void aReceiverKilledMidwayIsReportedInOneLineWithWhatItHadTaken(String scheme) throws Exception {
        Path big = file("midway.bin", 48 << 20);
        Path inbox = tmp.resolve("inbox-killed");
        Run receiver = ferry("receive", "--listen", scheme + "://127.0.0.1:0", "--dir", inbox.toString());
        String uri = awaitListening(receiver);
        Run sender = ferry("send", "--limit-rate", "8M", big.toString(), uri);
        await("some of the file to arrive", () -> {
            try (java.util.stream.Stream<Path> in = Files.exists(inbox) ? Files.list(inbox) : java.util.stream.Stream.empty()) {
                return in.anyMatch(p -> p.toFile().length() > (2 << 20));
            } catch (IOException e) {
                return false;
            }
        });
        receiver.process.destroyForcibly().waitFor(); // SIGKILL: no reset from uTP, UDT or QUIC, only silence
        long killed = System.nanoTime();
        assertEquals(1, sender.finish());
        double seconds = (System.nanoTime() - killed) / 1e9;
        assertTrue(seconds < 30, "the sender knew within seconds (4 s of silence over UDP), not a transport's idle timeout: " + seconds);
        List<String> errors = sender.err.stream().filter(l -> l.startsWith("ferry send:")).toList();
        assertEquals(1, errors.size(), sender.errText());
        assertTrue(errors.get(0).matches("ferry send: the receiver at 127\\.0\\.0\\.1:\\d+ (stopped answering .* ago|closed the connection .*)"
                + "; it kept the .* of 48\\.0 MiB it had taken, and sending again resumes from there"), errors.get(0));
        assertFalse(sender.errText().contains("Exception") || sender.errText().contains("member connection"), sender.errText());
    }

    @Test
    void aReceiverRemovesPartialFilesNoSenderCameBackForAndSaysSo() throws Exception {
        Path inbox = Files.createDirectories(tmp.resolve("inbox-partials"));
        Path abandoned = Files.write(inbox.resolve(".left.iso.ferry-part"), new byte[5000]);
        Files.setLastModifiedTime(abandoned, java.nio.file.attribute.FileTime.from(java.time.Instant.now().minus(java.time.Duration.ofDays(8))));
        Path recent = Files.write(inbox.resolve(".recent.iso.ferry-part"), new byte[100]);
        Run receiver = ferry("receive", "--listen", "tcp://127.0.0.1:0", "--dir", inbox.toString());
        try {
            awaitListening(receiver);
            String line = receiver.readLine();
            assertEquals("removed .left.iso.ferry-part (4.9 KiB), a partial file not written for 8 days (--keep-partials)", line);
            assertTrue(receiver.readLine().startsWith("1 partial file (100 B) waits for its sender to resume"));
            assertFalse(Files.exists(abandoned));
            assertTrue(Files.exists(recent));
        } finally {
            receiver.stop();
        }
    }

    @Test
    void verboseListsEveryFileAndQuietPrintsNothingButErrors() throws Exception {
        Path tree = tmp.resolve("several");
        for (int i = 0; i < 3; i++) {
            file("several/f" + i + ".bin", 1000 + i);
        }
        Path inbox = tmp.resolve("inbox-verbose");
        Run receiver = ferry("receive", "--listen", "tcp://127.0.0.1:0", "--dir", inbox.toString());
        try {
            String uri = awaitListening(receiver);
            Run verbose = ferry("send", "--verbose", tree.toString(), uri);
            assertEquals(0, verbose.finish(), verbose::errText);
            assertEquals(3, verbose.out.stream().filter(l -> l.startsWith("sent several/f")).count(), verbose.out.toString());
            assertTrue(verbose.out.get(3).startsWith("3 files (2.9 KiB) verified by the receiver in "), verbose.out.toString());
            assertFalse(String.join("\n", verbose.out).contains(" at "), "no rate for a few bytes: " + verbose.out);
            Files.writeString(tree.resolve("f0.bin"), "changed");
            Run quiet = ferry("send", "--quiet", tree.toString(), uri);
            assertEquals(1, quiet.finish());
            assertEquals(List.of(), quiet.out, "nothing on stdout");
            assertEquals(1, quiet.err.size(), "the refusal of the changed file, alone: " + quiet.err);
            assertTrue(quiet.err.get(0).startsWith("ferry send: "), quiet.err.toString());
        } finally {
            receiver.stop();
        }
    }

    @Test
    void theReceiversJsonFailureEventsNameTheFileAndTheSender() throws Exception {
        Path tree = tmp.resolve("two");
        file("two/a.bin", 1000);
        file("two/b.bin", 2000);
        Path inbox = tmp.resolve("inbox-json");
        // the directory "two" and a.bin fill the limit: b.bin is refused
        Run receiver = ferry("receive", "--json", "--max-files", "2", "--listen", "tcp://127.0.0.1:0", "--dir", inbox.toString());
        try {
            await("the receiver to say where it listens (on stderr with --json)", () -> receiver.errContains("receiving into"));
            Matcher listening = LISTENING.matcher(receiver.errText());
            assertTrue(listening.find(), receiver.errText());
            Run sender = ferry("send", "--parallel", "1", tree.toString(), listening.group(1));
            assertEquals(1, sender.finish(), sender::errText);
            JsonNode failed = null;
            for (String line; failed == null && (line = receiver.readLine()) != null; ) {
                JsonNode event = JSON.readTree(line);
                if (event.path("event").asText().equals("failed")) {
                    failed = event;
                }
            }
            assertTrue(failed != null, receiver.out.toString());
            assertEquals("two/b.bin", failed.path("name").asText(), failed.toString());
            assertTrue(failed.path("peer").asText().startsWith("127.0.0.1:"), failed.toString());
            assertTrue(failed.path("message").asText().contains("at most 2 files from one sender"), failed.toString());
        } finally {
            receiver.stop();
        }
    }

    @Test
    void aListenerThatSaysNothingIsNamedAsNoFerryReceiverInOneLine() throws Exception {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Thread accepting = new Thread(() -> {
                try (java.net.Socket ignored = silent.accept()) {
                    Thread.sleep(30_000);
                } catch (IOException | InterruptedException e) {
                    // the test ends
                }
            });
            accepting.setDaemon(true);
            accepting.start();
            Run sender = ferry("send", file("x.bin", 100).toString(), "tcp://127.0.0.1:" + silent.getLocalPort());
            assertEquals(1, sender.finish());
            assertTrue(sender.errText().contains("is not a ferry receiver: it accepted the connection and then said nothing for 10"),
                    sender.errText());
            assertEquals(1, sender.errText().lines().count(), "one line: " + sender.errText());
            assertFalse(sender.errText().contains("member connection") || sender.errText().contains("version")
                    || sender.errText().contains("STREAMS"), "no library internals: " + sender.errText());
            accepting.interrupt();
        }
    }

    @ParameterizedTest
    @MethodSource("io.ferry.cli.InstalledTransports#schemes")
    void aPeerSpeakingSomethingElseIsRejectedOnBothSides(String scheme) throws Exception {
        try (Transports ferry = Transports.create()) {
            // A sender meeting a server that is not ferry (it greets first, as SSH servers do).
            Channel notFerry = ferry.listen(scheme + "://127.0.0.1:0", new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelActive(ChannelHandlerContext ctx) {
                            ctx.writeAndFlush(Unpooled.copiedBuffer("SSH-2.0-OpenSSH_9.2\r\n", StandardCharsets.US_ASCII));
                        }

                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ReferenceCountUtil.release(msg);
                        }
                    });
                }
            }).sync().channel();
            int port = ((InetSocketAddress) notFerry.localAddress()).getPort();
            Run sender = ferry("send", file("x.bin", 100).toString(), scheme + "://127.0.0.1:" + port);
            assertEquals(1, sender.finish());
            assertTrue(sender.errText().contains("does not speak the ferry protocol (it sent 'SSH-2.0-OpenSSH_"), sender.errText());
            assertFalse(sender.errText().contains("version"), "no guess about ferry versions: " + sender.errText());
            assertEquals(1, sender.errText().lines().count(), "one line: " + sender.errText());

            // A ferry receiver meeting a client that is not ferry: it tells it so in one line and goes on serving.
            Path inbox = tmp.resolve("inbox");
            Run receiver = ferry("receive", "--listen", scheme + "://127.0.0.1:0", "--dir", inbox.toString());
            try {
                String uri = awaitListening(receiver);
                StringBuffer told = new StringBuffer();
                Channel stranger = ferry.connect(uri, new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        told.append(((io.netty.buffer.ByteBuf) msg).toString(StandardCharsets.US_ASCII));
                        ReferenceCountUtil.release(msg);
                    }
                }).sync().channel();
                stranger.writeAndFlush(Unpooled.copiedBuffer("GET / HTTP/1.1\r\n\r\n", StandardCharsets.US_ASCII));
                await("the receiver to refuse the stranger", () -> told.toString().contains("ERROR this listener carries striped sessions"));
                assertTrue(stranger.closeFuture().await(20, java.util.concurrent.TimeUnit.SECONDS), "the receiver closed the stranger's connection");
                Run good = ferry("send", file("y.bin", 1000).toString(), uri);
                assertEquals(0, good.finish(), good::errText);
                assertTrue(Files.exists(inbox.resolve("y.bin")));
            } finally {
                receiver.stop();
            }
        }
    }

    @ParameterizedTest
    @MethodSource("io.ferry.cli.InstalledTransports#schemes")
    void tlsWithAPinnedSelfSignedCertificate(String scheme) throws Exception {
        Path source = file("secret.bin", 1_000_000);
        Path inbox = tmp.resolve("inbox");
        Run receiver = ferry("receive", "--listen", scheme + "://127.0.0.1:0", "--dir", inbox.toString(), "--tls");
        try {
            String uri = awaitListening(receiver);
            String pin = awaitPin(receiver);

            Run pinned = ferry("send", "--tls", "--pin", pin, "--streams", "2", source.toString(), uri); // TLS above a striped channel
            assertEquals(0, pinned.finish(), pinned::errText);
            assertArrayEquals(Files.readAllBytes(source), Files.readAllBytes(inbox.resolve("secret.bin")));

            Run wrongPin = ferry("send", "--pin", "sha256:" + "ab".repeat(32), source.toString(), uri);
            assertEquals(1, wrongPin.finish());
            assertTrue(wrongPin.errText().contains("does not match the pinned sha256:abab"), wrongPin.errText());

            Run plaintext = ferry("send", source.toString(), uri);
            if (scheme.equals("quic")) {
                // QUIC is TLS 1.3 itself: a sender without --tls is encrypted too, it just does not check the receiver
                assertEquals(0, plaintext.finish(), plaintext::errText);
            } else {
                assertEquals(1, plaintext.finish());
                assertTrue(plaintext.errText().contains("this receiver requires TLS; send with --tls"), plaintext.errText());
            }
        } finally {
            receiver.stop();
        }
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"tcp", "quic"}) // quic: the same checks in QUIC's own TLS
    void aReceiverLetsInOnlyTheSendersWhoseCertificatesItAllows(String scheme) throws Exception {
        Path keys = tmp.resolve("keys");
        Run keygen = ferry("keygen", "--out", keys.toString(), "--name", "laptop");
        assertEquals(0, keygen.finish(), keygen::errText);
        String allowed = keygen.out.stream().filter(l -> l.startsWith("fingerprint ")).map(l -> l.substring("fingerprint ".length()))
                .findFirst().orElseThrow(() -> new AssertionError("keygen prints the fingerprint: " + keygen.out));
        assertTrue(Files.readString(keys.resolve("laptop.pem")).startsWith("-----BEGIN CERTIFICATE-----"));
        assertTrue(Files.readString(keys.resolve("laptop.key")).startsWith("-----BEGIN PRIVATE KEY-----"));
        assertEquals(java.util.Set.of(java.nio.file.attribute.PosixFilePermission.OWNER_READ, java.nio.file.attribute.PosixFilePermission.OWNER_WRITE),
                Files.getPosixFilePermissions(keys.resolve("laptop.key")), "the key is its owner's only");
        Run other = ferry("keygen", "--out", keys.toString(), "--name", "stranger");
        assertEquals(0, other.finish(), other::errText);
        Run again = ferry("keygen", "--out", keys.toString(), "--name", "laptop");
        assertEquals(1, again.finish());
        assertTrue(again.errText().contains("laptop.pem exists"), again.errText());

        Path source = file("for-chosen.bin", 200_000);
        Path inbox = tmp.resolve("inbox-chosen");
        Run receiver = ferry("receive", "--listen", scheme + "://127.0.0.1:0", "--dir", inbox.toString(), "--allow", allowed);
        try {
            String uri = awaitListening(receiver);
            String pin = awaitPin(receiver); // --allow implies --tls: the receiver prints its certificate's fingerprint

            Run noCertificate = ferry("send", "--pin", pin, source.toString(), uri);
            assertEquals(1, noCertificate.finish());
            assertTrue(noCertificate.errText().contains("the receiver lets in chosen senders only and refused this one (TLS alert "),
                    noCertificate.errText());
            assertTrue(noCertificate.errText().contains("present a certificate it allows with --cert FILE --key FILE"), noCertificate.errText());
            Run stranger = ferry("send", "--pin", pin, "--cert", keys.resolve("stranger.pem").toString(), "--key",
                    keys.resolve("stranger.key").toString(), source.toString(), uri);
            assertEquals(1, stranger.finish());
            assertTrue(stranger.errText().contains("the receiver lets in chosen senders only and refused this one"), stranger.errText());
            assertEquals(1, stranger.errText().lines().filter(l -> !l.isBlank()).count(), "one line: " + stranger.errText());
            await("the receiver to name the refused certificate", () -> receiver.errContains("is not allowed (not in --allow)"));
            assertFalse(Files.exists(inbox.resolve("for-chosen.bin")), "a refused sender wrote nothing");
            try (java.util.stream.Stream<Path> stored = Files.list(inbox)) {
                assertEquals(0, stored.count(), "not even a partial file");
            }

            Run chosen = ferry("send", "--pin", pin, "--cert", keys.resolve("laptop.pem").toString(), "--key",
                    keys.resolve("laptop.key").toString(), source.toString(), uri);
            assertEquals(0, chosen.finish(), chosen::errText);
            assertArrayEquals(Files.readAllBytes(source), Files.readAllBytes(inbox.resolve("for-chosen.bin")));
        } finally {
            receiver.stop();
        }
        Run nobody = ferry("receive", "--listen", "tcp://127.0.0.1:0", "--dir", inbox.toString(), "--require-client-cert");
        assertEquals(2, nobody.finish());
        assertTrue(nobody.errText().contains("--require-client-cert needs --allow sha256:... or --client-ca FILE"), nobody.errText());
        Run badPin = ferry("receive", "--listen", "tcp://127.0.0.1:0", "--dir", inbox.toString(), "--allow", "sha256:1234");
        assertEquals(2, badPin.finish());
        assertTrue(badPin.errText().contains("is not a SHA-256 fingerprint"), badPin.errText());
        Run halfIdentity = ferry("send", "--cert", keys.resolve("laptop.pem").toString(), source.toString(), "tcp://127.0.0.1:9");
        assertEquals(2, halfIdentity.finish());
        assertTrue(halfIdentity.errText().contains("--cert and --key go together"), halfIdentity.errText());
    }

    // ------------------------------------------------------------------ shared secret (--token-file)

    private Path tokenFile(String name, String secret) throws IOException {
        Path p = Files.writeString(tmp.resolve(name), secret + "\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(p, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        return p;
    }

    /** Every entry under {@code dir}, hidden ones included. */
    private static List<String> everythingIn(Path dir) throws IOException {
        try (java.util.stream.Stream<Path> all = Files.walk(dir)) {
            return all.filter(p -> !p.equals(dir)).map(p -> dir.relativize(p).toString()).sorted().toList();
        }
    }

    private static List<String> lines(Run run) {
        return run.errText().lines().filter(l -> !l.isBlank()).toList();
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"tcp", "utp"})
    void aReceiverWithATokenFileLetsInOnlySendersHoldingTheSameSecret(String scheme) throws Exception {
        Path good = tokenFile("good.token", "a shared secret of some length");
        Path sameAgain = tokenFile("copy.token", "a shared secret of some length");
        Path wrong = tokenFile("wrong.token", "another secret, just as long");
        Path source = file("tokened.bin", 400_000);
        Path inbox = Files.createDirectories(tmp.resolve("inbox-token-" + scheme));
        Run receiver = ferry("receive", "--listen", scheme + "://127.0.0.1:0", "--dir", inbox.toString(), "--token-file", good.toString());
        try {
            String uri = awaitListening(receiver);

            Run wrongToken = ferry("send", "--token-file", wrong.toString(), source.toString(), uri);
            assertEquals(1, wrongToken.finish());
            assertEquals(List.of("ferry send: the receiver refused this sender: wrong token (--token-file)"), lines(wrongToken));
            await("the receiver to log the refusal", () -> receiver.errContains("wrong token (--token-file)"));
            assertEquals(List.of(), everythingIn(inbox), "a refused sender wrote nothing, not even a hidden part file");

            Run noToken = ferry("send", source.toString(), uri);
            assertEquals(1, noToken.finish());
            assertEquals(List.of("ferry send: the receiver refused this sender: it takes files only from senders holding its shared "
                    + "secret (--token-file)"), lines(noToken));
            await("the receiver to log the second refusal", () -> lines(receiver).size() >= 2);
            assertEquals(List.of(), everythingIn(inbox));

            Run rightToken = ferry("send", "--token-file", sameAgain.toString(), source.toString(), uri);
            assertEquals(0, rightToken.finish(), rightToken::errText);
            assertArrayEquals(Files.readAllBytes(source), Files.readAllBytes(inbox.resolve("tokened.bin")));
            assertEquals(List.of("tokened.bin"), everythingIn(inbox));
        } finally {
            receiver.stop();
        }
        List<String> refusals = receiver.err.stream().filter(l -> l.contains("refused the sender at")).toList();
        assertEquals(2, refusals.size(), "one line per refused sender: " + receiver.errText());
        assertTrue(refusals.get(0).matches("ferry receive: refused the sender at 127\\.0\\.0\\.1:\\d+: wrong token \\(--token-file\\)"),
                refusals.get(0));
    }

    @Test
    void aTokenWorksOverTlsAndStripedStreamsAndATokenedSenderSendsNothingToAnOpenReceiver() throws Exception {
        Path token = tokenFile("both.token", "correct horse battery staple");
        Path source = file("striped-secret.bin", 2_000_000);
        Path inbox = Files.createDirectories(tmp.resolve("inbox-token-tls"));
        Run receiver = ferry("receive", "--listen", "tcp://127.0.0.1:0", "--dir", inbox.toString(), "--tls", "--token-file", token.toString());
        try {
            String uri = awaitListening(receiver);
            String pin = awaitPin(receiver);
            Run sender = ferry("send", "--pin", pin, "--token-file", token.toString(), "--streams", "3", source.toString(), uri);
            assertEquals(0, sender.finish(), sender::errText);
            assertArrayEquals(Files.readAllBytes(source), Files.readAllBytes(inbox.resolve("striped-secret.bin")));
        } finally {
            receiver.stop();
        }

        Path openInbox = Files.createDirectories(tmp.resolve("inbox-open"));
        Run open = ferry("receive", "--listen", "utp://127.0.0.1:0", "--dir", openInbox.toString());
        try {
            String uri = awaitListening(open);
            Run sender = ferry("send", "--token-file", token.toString(), source.toString(), uri);
            assertEquals(1, sender.finish());
            List<String> said = lines(sender);
            assertEquals(1, said.size(), sender.errText());
            assertTrue(said.get(0).startsWith("ferry send: the receiver at 127.0.0.1:") && said.get(0).endsWith(
                    "has no shared secret (it runs without --token-file): nothing sent, as --token-file sends only to a receiver that "
                            + "proves it holds the secret"), said.get(0));
            assertEquals(List.of(), everythingIn(openInbox), "nothing offered, nothing written");
        } finally {
            open.stop();
        }
    }

    @Test
    void aTokenFileOthersCanReadOrThatIsTooShortIsRefusedNamingTheFix() throws Exception {
        Path readable = tokenFile("readable.token", "long enough to be a secret");
        Files.setPosixFilePermissions(readable, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        Run sender = ferry("send", "--token-file", readable.toString(), file("t.bin", 10).toString(), "tcp://127.0.0.1:9");
        assertEquals(1, sender.finish());
        assertEquals(List.of("ferry send: --token-file: " + readable + " is open to other users (rw-r--r--); a shared secret must be "
                + "its owner's only: chmod 600 " + readable), lines(sender));
        Path shortOne = tokenFile("short.token", "too short");
        Run receiver = ferry("receive", "--listen", "tcp://127.0.0.1:0", "--dir", tmp.resolve("inbox-short").toString(),
                "--token-file", shortOne.toString());
        assertEquals(1, receiver.finish());
        assertTrue(receiver.errText().startsWith("ferry receive: --token-file: " + shortOne + " holds 9 bytes; a shared secret needs at "
                + "least 16"), receiver.errText());
    }

    @Test
    void aFullDiskGivesOneClearMessageAndNoFileUnderItsFinalName() throws Exception {
        Path small = Files.createDirectories(tmp.resolve("small"));
        boolean root = "root".equals(System.getProperty("user.name"));
        Assumptions.assumeTrue(root, "skipped: mounting a 1 MiB tmpfs to fill needs root");
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", small.toString()).redirectErrorStream(true).start();
        String mountOutput = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Assumptions.assumeTrue(mount.waitFor() == 0, "skipped: cannot mount a tmpfs here: " + mountOutput.trim());
        try {
            Run receiver = ferry("receive", "--listen", "tcp://127.0.0.1:0", "--dir", small.toString());
            String uri = awaitListening(receiver);
            // an offer larger than the free space is refused before a byte is written
            Run tooBig = ferry("send", file("big.bin", 4 << 20).toString(), uri);
            assertEquals(1, tooBig.finish());
            List<String> refusal = tooBig.err.stream().filter(l -> l.startsWith("ferry send:")).toList();
            assertEquals(1, refusal.size(), tooBig.errText());
            assertTrue(refusal.get(0).contains("big.bin (4.0 MiB) does not fit: the receiving disk has "), refusal.get(0));
            try (java.util.stream.Stream<Path> left = Files.list(small)) {
                assertEquals(0, left.count(), "nothing written, not even a partial file");
            }
            // files that each fit but together do not: the disk fills, and the session ends in one line
            Path two = tmp.resolve("two-halves");
            file("two-halves/a.bin", 700_000);
            file("two-halves/b.bin", 700_000);
            Run sender = ferry("send", two.toString(), uri);
            assertEquals(1, sender.finish());
            List<String> lines = sender.err.stream().filter(l -> l.startsWith("ferry send:")).toList();
            assertEquals(1, lines.size(), "one message: " + sender.errText());
            assertTrue(lines.get(0).contains("the receiver's disk is full: cannot write two-halves/"), lines.get(0));
            assertTrue(lines.get(0).contains("(No space left on device)"), lines.get(0));
            receiver.stop();
            assertFalse(Files.exists(small.resolve("two-halves/a.bin")) && Files.exists(small.resolve("two-halves/b.bin")),
                    "not both under their final names");
        } finally {
            new ProcessBuilder("umount", small.toString()).start().waitFor();
        }
    }

    // ------------------------------------------------------------------ clear errors

    @Test
    void refusedConnectionGivesOneClearLineAndExitCodeOne() throws Exception {
        Path source = file("a.bin", 10);
        Run sender = ferry("send", source.toString(), "tcp://127.0.0.1:1");
        assertEquals(1, sender.finish());
        assertTrue(sender.errText().startsWith("ferry send: cannot connect to tcp://127.0.0.1:1: "), sender.errText());
        assertTrue(sender.errText().contains("refused"), sender.errText());
        assertEquals(1, sender.err.size(), sender.errText());
    }

    @Test
    void unknownHostIsNamed() throws Exception {
        Run sender = ferry("send", file("a.bin", 10).toString(), "tcp://no-such-host.invalid:9000");
        assertEquals(1, sender.finish());
        assertTrue(sender.errText().contains("cannot resolve host 'no-such-host.invalid'"), sender.errText());
    }

    @Test
    void missingSourceFileIsNamed() throws Exception {
        Run sender = ferry("send", tmp.resolve("nope.bin").toString(), "tcp://127.0.0.1:9");
        assertEquals(1, sender.finish());
        assertEquals("ferry send: " + tmp.resolve("nope.bin") + ": no such file or directory", sender.errText());
    }

    @Test
    void withJsonAFailureBeforeTheSessionIsStillOneJsonObject() throws Exception {
        Path source = file("j.bin", 1000);
        Run refused = ferry("send", "--json", source.toString(), "tcp://127.0.0.1:1");
        assertEquals(1, refused.finish());
        assertEquals(1, refused.out.size(), "one line on stdout: " + refused.out);
        JsonNode summary = JSON.readTree(refused.out.get(0));
        assertFalse(summary.get("ok").asBoolean());
        assertEquals("tcp://127.0.0.1:1", summary.get("uri").asText());
        assertTrue(summary.get("error").asText().startsWith("cannot connect to tcp://127.0.0.1:1: "), summary.toString());
        assertEquals(1, summary.get("files").asInt());
        assertEquals(1000, summary.get("bytes").asLong());
        assertEquals("ferry send: " + summary.get("error").asText(), refused.errText(), "stderr says the same");

        Run missing = ferry("send", "--json", tmp.resolve("nope.bin").toString(), "tcp://127.0.0.1:9");
        assertEquals(1, missing.finish());
        JsonNode none = JSON.readTree(String.join("\n", missing.out));
        assertFalse(none.get("ok").asBoolean());
        assertEquals(tmp.resolve("nope.bin") + ": no such file or directory", none.get("error").asText());

        Run badCa = ferry("send", "--json", "--tls", "--ca", tmp.resolve("no-ca.pem").toString(), source.toString(), "tcp://127.0.0.1:9");
        assertEquals(1, badCa.finish());
        assertTrue(JSON.readTree(String.join("\n", badCa.out)).get("error").asText().startsWith("cannot use " + tmp.resolve("no-ca.pem")),
                String.join("\n", badCa.out));
    }

    @Test
    void badUriIsAUsageErrorNamingTheProblem() throws Exception {
        Path source = file("b.bin", 10);
        Run sender = ferry("send", source.toString(), "tcp://127.0.0.1");
        assertEquals(2, sender.finish());
        assertTrue(sender.errText().contains("has no port"), sender.errText());
        Run unknown = ferry("send", source.toString(), "carrier-pigeon://h:1");
        assertEquals(2, unknown.finish());
        assertTrue(unknown.errText().contains("no transport is installed for scheme 'carrier-pigeon'; installed: "), unknown.errText());
        Run swapped = ferry("send", "tcp://127.0.0.1:9000", source.toString());
        assertEquals(2, swapped.finish());
        assertTrue(swapped.errText().contains("the URI comes last"), swapped.errText());
    }

    @Test
    void aUsageErrorIsItsLineAndTheNearestSuggestionNotTheWholeHelp() throws Exception {
        Run typo = ferry("sned", "x", "tcp://127.0.0.1:9");
        assertEquals(2, typo.finish());
        assertEquals(List.of("ferry: Unmatched arguments from index 0: 'sned', 'x', 'tcp://127.0.0.1:9'", "Did you mean: ferry send?",
                "Try 'ferry --help' for more."), typo.err, typo.errText());
        Run option = ferry("send", "--limit-rat", "5M", file("d.bin", 10).toString(), "tcp://127.0.0.1:9");
        assertEquals(2, option.finish());
        assertEquals(3, option.err.size(), option.errText());
        assertEquals("Did you mean: ferry send --limit-rate?", option.err.get(1), option.errText());
        assertEquals("Try 'ferry send --help' for more.", option.err.get(2));
    }

    @Test
    void completionOffersTheChecksumNamesAsTheyAreTyped() {
        String script = picocli.AutoComplete.bash("ferry", FerryCli.commandLine());
        assertTrue(script.contains("(\"crc32c\" \"sha256\")"), "the lower-case names");
        assertFalse(script.contains("CRC32C") || script.contains("SHA256"), "not the enum's constants");
    }

    @Test
    void badTransportOptionsAreUsageErrorsNamingTheProblem() throws Exception {
        Path source = file("c.bin", 10);
        Run unknown = ferry("send", "--opt", "warp-speed=9", source.toString(), "utp://127.0.0.1:9");
        assertEquals(2, unknown.finish());
        assertTrue(unknown.errText().contains("transport 'utp' has no option 'warp-speed'; it has: "), unknown.errText());
        assertTrue(unknown.errText().contains("target-delay"), unknown.errText());
        Run badValue = ferry("send", "--opt", "target-delay=soon", source.toString(), "utp://127.0.0.1:9");
        assertEquals(2, badValue.finish());
        assertTrue(badValue.errText().contains("'soon' is not a duration"), badValue.errText());
        Run outOfRange = ferry("send", "--opt", "packet-size=10", source.toString(), "tcp://127.0.0.1:9");
        assertEquals(2, outOfRange.finish());
        assertTrue(outOfRange.errText().contains("PACKET_SIZE must be between 64 and 65507"), outOfRange.errText());
        Run takeover = ferry("receive", "--listen", "tcp://127.0.0.1:0", "--dir", tmp.resolve("never").toString(),
                "--take-over-after", "-1");
        assertEquals(2, takeover.finish());
        assertTrue(takeover.errText().contains("--take-over-after must be a number of seconds, 0 or more (got -1.0)"), takeover.errText());
    }

    @Test
    void validTransportOptionsReachTheTransport() throws Exception {
        Path source = file("d.bin", 100_000);
        Path inbox = tmp.resolve("inbox");
        Run receiver = ferry("receive", "--listen", "utp://127.0.0.1:0", "--dir", inbox.toString(), "--once",
                "--opt", "receive-buffer-size=2M");
        Run sender = ferry("send", "--opt", "target-delay=50ms", "--opt", "send-buffer-size=1M", "--opt", "connect-timeout=5s",
                source.toString(), awaitListening(receiver));
        assertEquals(0, sender.finish(), sender::errText);
        assertEquals(0, receiver.finish(), receiver::errText);
    }

    // ------------------------------------------------------------------ output

    @Test
    void nonTerminalProgressIsPlainLines() throws Exception {
        // stdout/stderr are pipes here, so the sender must not draw a bar; a rate-limited file shows lines.
        Path source = file("big.bin", 8 << 20);
        Path inbox = tmp.resolve("inbox2");
        Run receiver = ferry("receive", "--listen", "tcp://127.0.0.1:0", "--dir", inbox.toString(), "--once");
        Run sender = ferry("send", "--limit-rate", "4M", source.toString(), awaitListening(receiver));
        assertEquals(0, sender.finish(), sender::errText);
        assertEquals(0, receiver.finish());
        assertFalse(sender.errText().contains("\r"), "no carriage-return redraws when not on a terminal");
        assertFalse(sender.err.isEmpty(), "progress lines were printed");
        for (String line : sender.err) {
            assertTrue(line.matches("big\\.bin: .* of 8\\.0 MiB \\(\\d+%\\) at .*/s, ETA .*"), "plain progress line: " + line);
        }
    }

    @Test
    void demoMovesAndVerifiesAFileOverEveryInstalledTransport() throws Exception {
        Run demo = ferry("demo", "--size", "2M");
        assertEquals(0, demo.finish(), demo::errText);
        List<String> schemes = InstalledTransports.names();
        assertTrue(demo.out.get(0).startsWith("ferry demo: moving a 2.0 MiB file over " + String.join(", ", schemes)), demo.out.toString());
        for (String scheme : schemes) {
            assertTrue(demo.out.stream().anyMatch(l -> l.startsWith(scheme + " ") && l.trim().endsWith("yes")), demo.out.toString());
        }
    }

    @Test
    void helpListsTheCommandsAndCompletionIsGenerated() throws Exception {
        Run help = ferry("--help");
        assertEquals(0, help.finish());
        String text = String.join("\n", help.out);
        for (String command : List.of("send", "receive", "demo", "generate-completion")) {
            assertTrue(text.contains(command), text);
        }
        Run completion = ferry("generate-completion");
        assertEquals(0, completion.finish());
        String script = String.join("\n", completion.out);
        assertTrue(script.contains("complete -F _complete_ferry") && script.contains("--limit-rate"), script);
    }
}
