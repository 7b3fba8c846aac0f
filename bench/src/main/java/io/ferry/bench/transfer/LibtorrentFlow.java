package io.ferry.bench.transfer;

import io.ferry.bench.netns.Commands;
import io.ferry.bench.netns.NetworkNamespace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * libtorrent's uTP (Debian {@code python3-libtorrent}, libtorrent-rasterbar 2.0) as a bulk flow: a
 * seeding session in the sending namespace and a downloading session in the receiving one, TCP disabled
 * in both so their one connection is uTP with libtorrent's own LEDBAT at its defaults. This is the
 * scavenger of the seed study, measured on the same emulated link as Ferry's.
 *
 * <p>Both sessions run as child processes ({@code ip netns exec NS python3 libtorrent_flow.py ...});
 * closing the flow closes their standard input, which ends them.
 */
public final class LibtorrentFlow implements MeasuredFlow {

    private static final String PYTHON = "/usr/bin/python3";
    private static final long START_TIMEOUT_SECONDS = 30;

    private final String label;
    private final Process seeder;
    private final Process fetcher;
    private final Path saveDir;
    private final AtomicLong received = new AtomicLong();

    private LibtorrentFlow(String label, Process seeder, Process fetcher, Path saveDir) {
        this.label = label;
        this.seeder = seeder;
        this.fetcher = fetcher;
        this.saveDir = saveDir;
    }

    /** Why libtorrent flows cannot run here, or empty when {@code python3-libtorrent} imports. */
    public static Optional<String> missing() {
        try {
            Process p = new ProcessBuilder(PYTHON, "-c", "import libtorrent").redirectErrorStream(true).start();
            p.getOutputStream().close();
            if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0) {
                return Optional.empty();
            }
            p.destroyForcibly();
        } catch (IOException e) {
            return Optional.of(PYTHON + " cannot run: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Optional.of(PYTHON + " cannot import libtorrent (apt-get install python3-libtorrent)");
    }

    /**
     * A torrent of {@code size} bytes ready to be seeded, in a fresh directory under {@code parent}
     * (tmpfs keeps disk I/O out of the measurement). Delete it with {@link Payload#close()}.
     */
    public static Payload prepare(Path parent, long size) throws IOException {
        Path dir = Files.createTempDirectory(parent, "ferry-libtorrent-");
        Path script = dir.resolve("libtorrent_flow.py");
        try (InputStream in = LibtorrentFlow.class.getResourceAsStream("libtorrent_flow.py")) {
            if (in == null) {
                throw new IOException("libtorrent_flow.py is missing from the class path");
            }
            Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
        }
        Path seedDir = Files.createDirectory(dir.resolve("seed"));
        String out = Commands.run(PYTHON, script.toString(), "make", seedDir.toString(), Long.toString(size));
        if (!out.contains("MADE")) {
            throw new IOException("libtorrent_flow.py make printed: " + out);
        }
        Payload payload = new Payload(dir, script, seedDir);
        Runtime.getRuntime().addShutdownHook(new Thread(payload::close, "libtorrent-payload-cleanup"));
        return payload;
    }

    /**
     * Starts a flow from {@code sender} (address {@code senderAddress}) to {@code receiver} and returns
     * once the downloader was started (the first payload bytes follow within about a round trip or two).
     */
    public static LibtorrentFlow start(String label, Payload payload, NetworkNamespace sender, String senderAddress,
                                       NetworkNamespace receiver) throws IOException {
        Process seeder = python(sender, payload.script(), "seed", payload.seedDir().toString(), senderAddress);
        Path saveDir = null;
        try {
            String ready = readLine(seeder, "READY");
            int port = Integer.parseInt(ready.substring("READY ".length()).trim());
            saveDir = Files.createTempDirectory(payload.dir(), "fetch-");
            Process fetcher = python(receiver, payload.script(), "fetch", payload.seedDir().resolve("payload.torrent").toString(),
                    saveDir.toString(), senderAddress, Integer.toString(port));
            LibtorrentFlow flow = new LibtorrentFlow(label, seeder, fetcher, saveDir);
            Thread reader = new Thread(flow::readProgress, "libtorrent-" + label);
            reader.setDaemon(true);
            reader.start();
            return flow;
        } catch (IOException | RuntimeException e) {
            end(seeder);
            if (saveDir != null) {
                deleteTree(saveDir);
            }
            throw e;
        }
    }

    private static Process python(NetworkNamespace ns, Path script, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", ns.name(), PYTHON, script.toString()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    private static String readLine(Process p, String prefix) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        while (System.nanoTime() < deadline) {
            String line = r.readLine();
            if (line == null) {
                throw new IOException("libtorrent session exited before printing " + prefix);
            }
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new IOException("libtorrent session printed no " + prefix + " within " + START_TIMEOUT_SECONDS + " s");
    }

    private void readProgress() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(fetcher.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("BYTES ")) {
                    received.set(Long.parseLong(line.substring(6).trim()));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // the process ended or printed garbage: the counter keeps its last value
        }
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public long receivedBytes() {
        return received.get();
    }

    @Override
    public void close() {
        end(fetcher);
        end(seeder);
        deleteTree(saveDir);
    }

    private static void end(Process p) {
        try {
            p.getOutputStream().close();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            p.destroyForcibly();
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteTree(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a leftover in a temporary directory; nothing to do about it here
        }
    }

    /**
     * A prepared torrent: the script, the seeded file and its {@code payload.torrent}.
     *
     * @param dir     the directory holding everything; deleted by {@link #close()}
     * @param script  the Python driver
     * @param seedDir the directory with {@code payload.bin} and {@code payload.torrent}
     */
    public record Payload(Path dir, Path script, Path seedDir) implements AutoCloseable {
        @Override
        public void close() {
            deleteTree(dir);
        }
    }
}
