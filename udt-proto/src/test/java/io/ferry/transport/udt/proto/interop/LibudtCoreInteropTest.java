package io.ferry.transport.udt.proto.interop;

import io.ferry.transport.conformance.LeakDetectionExtension;
import io.ferry.transport.udt.proto.core.UdtConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The sans-I/O UDT core on a real UDP socket against the C++ UDT4: Debian's {@code libudt} 4.11
 * through a peer program compiled for the test ({@code interop/udt4_peer.cpp}). Stream and message
 * sockets, both roles, rendezvous, IPv4 and IPv6. Skips with the reason where g++ or
 * {@code libudt-dev} is missing; CI installs both. {@code -Dudt.interop.bytes=268435456} runs the bulk
 * cases at 256 MiB.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LibudtCoreInteropTest {
    private static final long BULK = Long.getLong("udt.interop.bytes", 32L << 20);
    private Path peer;

    @BeforeAll
    void compilePeer() throws Exception {
        String missing = !Files.isRegularFile(Path.of("/usr/include/udt/udt.h")) ? "Debian's libudt-dev (/usr/include/udt/udt.h)"
                : !onPath("g++") ? "g++" : null;
        if (missing != null) {
            System.out.println("LibudtCoreInteropTest skipped: " + missing + " is not installed");
        }
        assumeTrue(missing == null, missing + " is not installed");
        Path source = Path.of("src/test/resources/interop/udt4_peer.cpp").toAbsolutePath();
        peer = Path.of("target/udt4_peer").toAbsolutePath();
        Process gcc = new ProcessBuilder("g++", "-O2", "-std=c++11", "-I/usr/include/udt", "-o", peer.toString(),
                source.toString(), "-ludt", "-lpthread").redirectErrorStream(true).start();
        String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(gcc.waitFor(90, TimeUnit.SECONDS) && gcc.exitValue() == 0, "the C++ peer compiles: " + out);
    }

    private static InetAddress loopback(int family) throws IOException {
        return InetAddress.getByName(family == 6 ? "::1" : "127.0.0.1");
    }

    private static UdtConfig config(int family, boolean messages) {
        return UdtConfig.defaults().withIpv6(family == 6).withMessageMode(messages, true);
    }

    static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        return b;
    }

    static long fnv(long bytes) {
        long h = 0xcbf29ce484222325L;
        for (long i = 0; i < bytes; i++) {
            h = (h ^ ((i * 31 + 7) & 0xff)) * 0x100000001b3L;
        }
        return h;
    }

    private Process start(String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(peer.toString());
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    private static int announcedPort(BufferedReader lines) throws IOException {
        String first = lines.readLine();
        assertTrue(first != null && first.startsWith("PORT "), "the C++ peer announces its port: " + first);
        return Integer.parseInt(first.substring(5).trim());
    }

    @ParameterizedTest(name = "IPv{0}")
    @ValueSource(ints = {4, 6})
    void ferryStreamClientToALibudtEchoServer(int family) throws Exception {
        Process server = start("serve", Integer.toString(family), "stream");
        BufferedReader lines = reader(server);
        int port = announcedPort(lines);
        int size = 4 << 20;
        try (CoreDriver d = CoreDriver.connect(config(family, false), CoreDriver.Mode.KEEP, new InetSocketAddress(loopback(family), 0),
                new InetSocketAddress(loopback(family), port))) {
            d.connected.get(10, TimeUnit.SECONDS);
            byte[] payload = pattern(size);
            d.write(payload);
            waitFor(() -> d.bytes >= size, 60);
            assertArrayEquals(payload, d.kept.toByteArray(), "libudt echoed every byte");
            d.run(c -> c.close(10_000_000_000L, System.nanoTime()));
            assertNull(d.closed.get(15, TimeUnit.SECONDS), "closed after everything was acknowledged");
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "the C++ peer saw the shutdown");
            assertEquals("ECHOED " + size, lines.readLine().replaceAll(" \\d+$", ""));
        } finally {
            server.destroyForcibly();
        }
    }

    @ParameterizedTest(name = "IPv{0}")
    @ValueSource(ints = {4, 6})
    void libudtStreamClientToAFerryEchoListener(int family) throws Exception {
        try (CoreDriver d = CoreDriver.listen(config(family, false), CoreDriver.Mode.ECHO, new InetSocketAddress(loopback(family), 0))) {
            Process client = start("client", Integer.toString(family), "stream", Integer.toString(d.port()), "3000000");
            try {
                assertTrue(client.waitFor(60, TimeUnit.SECONDS), "the C++ client finished");
                String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(0, client.exitValue(), out);
                assertTrue(out.contains("VERIFIED 3000000"), out);
                assertNull(d.closed.get(10, TimeUnit.SECONDS), "libudt's close arrived as a shutdown");
            } finally {
                client.destroyForcibly();
            }
        }
    }

    @Test
    void messagesKeepTheirBoundariesBothWays() throws Exception {
        try (CoreDriver d = CoreDriver.listen(config(4, true), CoreDriver.Mode.ECHO, new InetSocketAddress(loopback(4), 0))) {
            Process client = start("client", "4", "dgram", Integer.toString(d.port()), "400000");
            try {
                assertTrue(client.waitFor(60, TimeUnit.SECONDS), "the C++ client finished");
                String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(0, client.exitValue(), out);
                assertTrue(out.contains("VERIFIED 400000"), out);
                assertTrue(d.messages > 10, "Ferry saw whole messages: " + d.messages);
            } finally {
                client.destroyForcibly();
            }
        }
    }

    @Test
    void ferryMessageClientToALibudtMessageEchoServer() throws Exception {
        Process server = start("serve", "4", "dgram");
        BufferedReader lines = reader(server);
        int port = announcedPort(lines);
        int[] sizes = {1, 1456, 1457, 65_536, 64 << 10, 300};
        try (CoreDriver d = CoreDriver.connect(config(4, true), CoreDriver.Mode.KEEP, new InetSocketAddress(loopback(4), 0),
                new InetSocketAddress(loopback(4), port))) {
            d.connected.get(10, TimeUnit.SECONDS);
            int total = 0;
            for (int s : sizes) {
                d.write(pattern(s));
                total += s;
            }
            int expected = total;
            waitFor(() -> d.bytes >= expected, 30);
            assertEquals(sizes.length, d.messages, "each message came back whole, as one delivery");
            d.run(c -> c.close(10_000_000_000L, System.nanoTime()));
            assertNull(d.closed.get(15, TimeUnit.SECONDS));
            assertTrue(server.waitFor(30, TimeUnit.SECONDS));
            assertEquals("ECHOED " + total + " " + sizes.length, lines.readLine());
        } finally {
            server.destroyForcibly();
        }
    }

    @Test
    void rendezvousWithLibudt() throws Exception {
        int local;
        try (DatagramSocket probe = new DatagramSocket(0, loopback(4))) {
            local = probe.getLocalPort();
        }
        int size = 1 << 20;
        try (CoreDriver d = CoreDriver.rendezvous(config(4, false), CoreDriver.Mode.ECHO, new InetSocketAddress(loopback(4), local),
                new InetSocketAddress(loopback(4), local + 1 == 65_536 ? local - 1 : local + 1))) {
            int theirs = local + 1 == 65_536 ? local - 1 : local + 1;
            Process other = start("rendezvous", "4", Integer.toString(theirs), Integer.toString(local), Integer.toString(size));
            try {
                assertTrue(other.waitFor(60, TimeUnit.SECONDS), "the C++ rendezvous peer finished");
                String out = new String(other.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(0, other.exitValue(), out);
                assertTrue(out.contains("VERIFIED " + size), out);
            } finally {
                other.destroyForcibly();
            }
        }
    }

    @Test
    void bulkFromFerryToLibudtArrivesByteExact() throws Exception {
        Process server = start("sink", "4");
        BufferedReader lines = reader(server);
        int port = announcedPort(lines);
        try (CoreDriver d = CoreDriver.connect(config(4, false), CoreDriver.Mode.HASH, new InetSocketAddress(loopback(4), 0),
                new InetSocketAddress(loopback(4), port))) {
            d.connected.get(10, TimeUnit.SECONDS);
            long started = System.nanoTime();
            for (long off = 0; off < BULK; off += 8 << 20) {
                d.write(pattern((int) Math.min(8 << 20, BULK - off)));
            }
            d.run(c -> c.close(60_000_000_000L, System.nanoTime()));
            assertNull(d.closed.get(100, TimeUnit.SECONDS), "every byte acknowledged before the shutdown");
            assertTrue(server.waitFor(30, TimeUnit.SECONDS));
            double secs = (System.nanoTime() - started) / 1e9;
            System.out.printf("Ferry core -> libudt: %d MiB in %.2f s, %.0f Mbit/s%n", BULK >> 20, secs, BULK * 8 / secs / 1e6);
            assertEquals(String.format("RECEIVED %d %016x", BULK, fnv(BULK)), lines.readLine());
        } finally {
            server.destroyForcibly();
        }
    }

    @Test
    void bulkFromLibudtToFerryArrivesByteExact() throws Exception {
        try (CoreDriver d = CoreDriver.listen(config(4, false), CoreDriver.Mode.HASH, new InetSocketAddress(loopback(4), 0))) {
            long started = System.nanoTime();
            Process source = start("source", "4", Integer.toString(d.port()), Long.toString(BULK));
            try {
                assertTrue(source.waitFor(100, TimeUnit.SECONDS), "the C++ source finished");
                String out = new String(source.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(0, source.exitValue(), out);
                assertNull(d.closed.get(10, TimeUnit.SECONDS));
                double secs = (System.nanoTime() - started) / 1e9;
                System.out.printf("libudt -> Ferry core: %d MiB in %.2f s, %.0f Mbit/s%n", BULK >> 20, secs, BULK * 8 / secs / 1e6);
                assertEquals(BULK, d.bytes);
                assertEquals(fnv(BULK), d.hash(), "byte-exact");
            } finally {
                source.destroyForcibly();
            }
        }
    }

    private static BufferedReader reader(Process p) {
        return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII));
    }

    private static void waitFor(java.util.function.BooleanSupplier condition, int seconds) throws InterruptedException {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (!condition.getAsBoolean() && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertTrue(condition.getAsBoolean(), "timed out after " + seconds + " s");
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }
}
