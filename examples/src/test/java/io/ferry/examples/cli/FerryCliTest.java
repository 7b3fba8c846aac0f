package io.ferry.examples.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
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

/** Drives the ferry CLI as a user would: separate JVM processes, real files, loopback. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FerryCliTest {

    private static final Pattern LISTENING = Pattern.compile("receiving into .* on ((tcp|utp)://[^ ]+)");

    @TempDir
    Path tmp;

    /** A running ferry process with its output collected. */
    private static final class Run {
        final Process process;
        final List<String> out = new ArrayList<>();
        final List<String> err = new ArrayList<>();
        final BufferedReader stdout;

        Run(Process process) {
            this.process = process;
            this.stdout = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            Thread errReader = new Thread(() -> {
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
            return process.exitValue();
        }

        String errText() {
            synchronized (err) {
                return String.join("\n", err);
            }
        }
    }

    private static Run ferry(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), FerryCli.class.getName()));
        command.addAll(List.of(args));
        return new Run(new ProcessBuilder(command).start());
    }

    private Path file(String name, int size) throws IOException {
        byte[] data = new byte[size];
        new SplittableRandom(size).nextBytes(data);
        return Files.write(tmp.resolve(name), data);
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

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"tcp", "utp"})
    void sendsAFileToAReceiverInAnotherProcess(String scheme) throws Exception {
        Path source = file("payload.bin", 3_000_000);
        Path inbox = tmp.resolve("inbox-" + scheme);
        Run receiver = ferry("receive", "--listen", scheme + "://127.0.0.1:0", "--dir", inbox.toString(), "--once");
        String uri = awaitListening(receiver);
        Run sender = ferry("send", source.toString(), uri);
        assertEquals(0, sender.finish(), () -> "send succeeds; stderr: " + sender.errText());
        assertTrue(sender.out.get(0).startsWith("sent payload.bin (2.9 MiB) to " + uri), sender.out.toString());
        assertTrue(sender.out.get(0).contains("verified by the receiver"));
        assertEquals(0, receiver.finish(), () -> "receive --once exits 0; stderr: " + receiver.errText());
        assertTrue(receiver.out.stream().anyMatch(l -> l.startsWith("received payload.bin")), receiver.out.toString());
        assertArrayEquals(Files.readAllBytes(source), Files.readAllBytes(inbox.resolve("payload.bin")));
        assertFalse(sender.errText().contains("Exception"), "no stack traces for users: " + sender.errText());
    }

    @Test
    void refusedConnectionGivesOneClearLineAndExitCodeOne() throws Exception {
        Path source = file("a.bin", 10);
        Run sender = ferry("send", source.toString(), "tcp://127.0.0.1:1");
        assertEquals(1, sender.finish());
        assertTrue(sender.errText().startsWith("ferry send: cannot connect to tcp://127.0.0.1:1: "), sender.errText());
        assertTrue(sender.errText().contains("refused"), sender.errText());
    }

    @Test
    void missingSourceFileIsNamed() throws Exception {
        Run sender = ferry("send", tmp.resolve("nope.bin").toString(), "tcp://127.0.0.1:9");
        assertEquals(1, sender.finish());
        assertEquals("ferry send: " + tmp.resolve("nope.bin") + ": no such file", sender.errText());
    }

    @Test
    void badUriIsAUsageErrorNamingTheProblem() throws Exception {
        Path source = file("b.bin", 10);
        Run sender = ferry("send", source.toString(), "tcp://127.0.0.1");
        assertEquals(2, sender.finish());
        assertTrue(sender.errText().contains("has no port"), sender.errText());
        Run unknown = ferry("send", source.toString(), "carrier-pigeon://h:1");
        assertEquals(2, unknown.finish());
        assertTrue(unknown.errText().contains("no transport is installed for scheme 'carrier-pigeon'; installed: ledbat, tcp, utp"),
                unknown.errText());
    }

    @Test
    void nonTerminalProgressIsPlainLines() throws Exception {
        // stdout/stderr are pipes here, so the sender must not draw a bar; a large, slow-ish file shows lines.
        Path source = file("big.bin", 64 << 20);
        Path inbox = tmp.resolve("inbox2");
        Run receiver = ferry("receive", "--listen", "tcp://127.0.0.1:0", "--dir", inbox.toString(), "--once");
        Run sender = ferry("send", "--chunk-size", "64K", source.toString(), awaitListening(receiver));
        assertEquals(0, sender.finish(), sender::errText);
        assertEquals(0, receiver.finish());
        assertFalse(sender.errText().contains("\r"), "no carriage-return redraws when not on a terminal");
        for (String line : sender.err) {
            assertTrue(line.matches("big\\.bin: .* of 64\\.0 MiB \\(\\d+%\\) at .*/s, ETA .*"), "plain progress line: " + line);
        }
    }

    @Test
    void demoMovesAndVerifiesAFileOverEveryInstalledTransport() throws Exception {
        Run demo = ferry("demo", "--size", "2M");
        assertEquals(0, demo.finish(), demo::errText);
        assertTrue(demo.out.get(0).startsWith("ferry demo: moving a 2.0 MiB file over tcp, utp"), demo.out.toString());
        for (String scheme : new String[]{"tcp", "utp"}) {
            assertTrue(demo.out.stream().anyMatch(l -> l.startsWith(scheme + " ") && l.trim().endsWith("yes")), demo.out.toString());
        }
    }

    @Test
    void helpListsTheCommands() throws Exception {
        Run help = ferry("--help");
        assertEquals(0, help.finish());
        String text = String.join("\n", help.out);
        assertTrue(text.contains("send") && text.contains("receive") && text.contains("demo"), text);
    }
}
