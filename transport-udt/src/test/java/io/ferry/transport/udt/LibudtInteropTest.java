package io.ferry.transport.udt;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Ferry's udt:// channels against the C++ reference implementation: Debian's {@code libudt} 4.11 (package
 * {@code libudt-dev}), through udt-proto's peer program ({@code interop/udt4_peer.cpp}) compiled with g++ for
 * the test. Ferry runs in {@link UdtChannelOption#RAW_STREAM} mode, the plain UDT byte stream other UDT
 * applications speak; message mode keeps messages whole both ways, and a rendezvous meets libudt's. The bulk
 * cases move 32 MiB each way byte-exact, 256 MiB with
 * {@code -Dudt.interop.bytes=268435456}. Skips with the reason where the compiler or the library is
 * missing; CI installs both.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LibudtInteropTest {

    private static final ChannelOptions RAW = ChannelOptions.builder().set(UdtChannelOption.RAW_STREAM, true).build();
    private static final long BULK = Long.getLong("udt.interop.bytes", 32L << 20);

    private Path peer;
    private Transports ferry;

    @BeforeAll
    void compilePeer() throws Exception {
        String missing = !Files.isRegularFile(Path.of("/usr/include/udt/udt.h")) ? "Debian's libudt-dev (/usr/include/udt/udt.h)"
                : !onPath("g++") ? "g++" : null;
        if (missing != null) {
            System.out.println("LibudtInteropTest skipped: " + missing + " is not installed");
        }
        assumeTrue(missing == null, missing + " is not installed");
        Path source = Path.of("../udt-proto/src/test/resources/interop/udt4_peer.cpp").toAbsolutePath().normalize();
        peer = Path.of("target/udt4_peer").toAbsolutePath();
        Process gcc = new ProcessBuilder("g++", "-O2", "-std=c++11", "-I/usr/include/udt", "-o", peer.toString(),
                source.toString(), "-ludt", "-lpthread").redirectErrorStream(true).start();
        String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(gcc.waitFor(90, TimeUnit.SECONDS) && gcc.exitValue() == 0, "the C++ peer compiles: " + out);
        ferry = Transports.create();
    }

    @AfterAll
    void closeFerry() {
        if (ferry != null) {
            ferry.close();
        }
    }

    @Test
    void ferryClientTalksToACppUdtServer() throws Exception {
        Process server = new ProcessBuilder(peer.toString(), "serve", "4", "stream").redirectErrorStream(true).start();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.US_ASCII));
            int port = announcedPort(lines);
            int size = 4 << 20;
            Received echo = new Received(size);
            Channel client = ferry.connect("udt://127.0.0.1:" + port, echo, RAW).sync().channel();
            byte[] payload = new byte[size];
            new SplittableRandom(11).nextBytes(payload);
            client.writeAndFlush(Unpooled.wrappedBuffer(payload)).sync();
            assertArrayEquals(payload, echo.all.get(60, TimeUnit.SECONDS), "libudt echoed every byte back");
            client.close().sync();
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "the C++ peer saw the close and ended");
            assertTrue(lines.readLine().startsWith("ECHOED " + size + " "));
            assertEquals(0, server.exitValue());
        } finally {
            server.destroyForcibly();
        }
    }

    @Test
    void cppUdtClientTalksToAFerryListener() throws Exception {
        Channel listener = ferry.listen("udt://127.0.0.1:0", echoing(), RAW).sync().channel();
        int port = ((InetSocketAddress) listener.localAddress()).getPort();
        Process client = new ProcessBuilder(peer.toString(), "client", "4", "stream", Integer.toString(port), Integer.toString(3_000_000))
                .redirectErrorStream(true).start();
        try {
            assertTrue(client.waitFor(60, TimeUnit.SECONDS), "the C++ client finished");
            String out = read(client.getInputStream());
            assertEquals(0, client.exitValue(), out);
            assertTrue(out.contains("VERIFIED 3000000"), out);
        } finally {
            client.destroyForcibly();
            listener.close().sync();
        }
    }

    @Test
    void bulkFromFerryToLibudtArrivesByteExact() throws Exception {
        Process sink = new ProcessBuilder(peer.toString(), "sink", "4").redirectErrorStream(true).start();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(sink.getInputStream(), StandardCharsets.US_ASCII));
            int port = announcedPort(lines);
            Channel client = ferry.connect("udt://127.0.0.1:" + port, new ChannelInboundHandlerAdapter(), RAW).sync().channel();
            long started = System.nanoTime();
            byte[] chunk = pattern(8 << 20);
            for (long off = 0; off < BULK; off += chunk.length) {
                int n = (int) Math.min(chunk.length, BULK - off);
                client.writeAndFlush(Unpooled.wrappedBuffer(chunk, 0, n)).sync();
            }
            client.close().sync();
            assertTrue(sink.waitFor(60, TimeUnit.SECONDS), "the C++ sink saw the end");
            double secs = (System.nanoTime() - started) / 1e9;
            System.out.printf("udt:// -> libudt: %d MiB in %.2f s, %.0f Mbit/s%n", BULK >> 20, secs, BULK * 8 / secs / 1e6);
            assertEquals(String.format("RECEIVED %d %016x", BULK, fnv(BULK)), lines.readLine());
        } finally {
            sink.destroyForcibly();
        }
    }

    @Test
    void bulkFromLibudtToFerryArrivesByteExact() throws Exception {
        CompletableFuture<long[]> received = new CompletableFuture<>();
        Channel listener = ferry.listen("udt://127.0.0.1:0", new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    long bytes;
                    long hash = 0xcbf29ce484222325L;

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf b = (ByteBuf) msg;
                        byte[] copy = new byte[b.readableBytes()]; // one access: the leak detector records each one
                        b.getBytes(b.readerIndex(), copy);
                        for (byte x : copy) {
                            hash = (hash ^ (x & 0xff)) * 0x100000001b3L;
                        }
                        bytes += copy.length;
                        b.release();
                    }

                    @Override
                    public void channelInactive(ChannelHandlerContext ctx) {
                        received.complete(new long[] {bytes, hash});
                    }
                });
            }
        }, RAW).sync().channel();
        int port = ((InetSocketAddress) listener.localAddress()).getPort();
        long started = System.nanoTime();
        Process source = new ProcessBuilder(peer.toString(), "source", "4", Integer.toString(port), Long.toString(BULK))
                .redirectErrorStream(true).start();
        try {
            long[] got = received.get(150, TimeUnit.SECONDS);
            double secs = (System.nanoTime() - started) / 1e9;
            System.out.printf("libudt -> udt://: %d MiB in %.2f s, %.0f Mbit/s%n", BULK >> 20, secs, BULK * 8 / secs / 1e6);
            assertTrue(source.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, source.exitValue(), read(source.getInputStream()));
            assertEquals(BULK, got[0]);
            assertEquals(fnv(BULK), got[1], "byte-exact");
        } finally {
            source.destroyForcibly();
            listener.close().sync();
        }
    }

    @Test
    void messagesKeepTheirBoundariesWithACppUdtClient() throws Exception {
        ChannelOptions messages = ChannelOptions.builder().set(UdtChannelOption.MESSAGE_MODE, true).build();
        Channel listener = ferry.listen("udt://127.0.0.1:0", echoing(), messages).sync().channel();
        int port = ((InetSocketAddress) listener.localAddress()).getPort();
        // the peer sends messages of 1 B to 64 KiB and checks each comes back whole, as one message
        Process client = new ProcessBuilder(peer.toString(), "client", "4", "dgram", Integer.toString(port), Integer.toString(400_000))
                .redirectErrorStream(true).start();
        try {
            assertTrue(client.waitFor(60, TimeUnit.SECONDS), "the C++ client finished");
            String out = read(client.getInputStream());
            assertEquals(0, client.exitValue(), out);
            assertTrue(out.contains("VERIFIED 400000"), out);
        } finally {
            client.destroyForcibly();
            listener.close().sync();
        }
    }

    @Test
    void aFerryMessageClientToACppUdtMessageServer() throws Exception {
        Process server = new ProcessBuilder(peer.toString(), "serve", "4", "dgram").redirectErrorStream(true).start();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.US_ASCII));
            int port = announcedPort(lines);
            int[] sizes = {1, 1456, 1457, 65_536, 300};
            Received echo = new Received(Integer.MAX_VALUE);
            ChannelOptions messages = ChannelOptions.builder().set(UdtChannelOption.MESSAGE_MODE, true).build();
            Channel client = ferry.connect("udt://127.0.0.1:" + port, echo, messages).sync().channel();
            int total = 0;
            for (int s : sizes) {
                client.writeAndFlush(Unpooled.wrappedBuffer(pattern(s))).sync();
                total += s;
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (echo.buffers.size() < sizes.length && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(sizes.length, echo.buffers.size(), "each message came back whole, as one read");
            for (int i = 0; i < sizes.length; i++) {
                assertArrayEquals(pattern(sizes[i]), echo.buffers.get(i), "message " + i);
            }
            client.close().sync();
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "the C++ peer saw the close");
            assertEquals("ECHOED " + total + " " + sizes.length, lines.readLine());
        } finally {
            server.destroyForcibly();
        }
    }

    @Test
    void rendezvousWithACppUdtPeer() throws Exception {
        int local;
        int theirs;
        try (java.net.DatagramSocket a = new java.net.DatagramSocket(0, java.net.InetAddress.getLoopbackAddress());
             java.net.DatagramSocket b = new java.net.DatagramSocket(0, java.net.InetAddress.getLoopbackAddress())) {
            local = a.getLocalPort();
            theirs = b.getLocalPort();
        }
        int size = 1 << 20;
        Process other = new ProcessBuilder(peer.toString(), "rendezvous", "4", Integer.toString(theirs), Integer.toString(local),
                Integer.toString(size)).redirectErrorStream(true).start();
        try {
            ChannelOptions rendezvous = ChannelOptions.builder().set(UdtChannelOption.RAW_STREAM, true)
                    .set(UdtChannelOption.RENDEZVOUS, true)
                    .set(UdtChannelOption.BIND_ADDRESS, new InetSocketAddress("127.0.0.1", local)).build();
            Channel ch = ferry.connect("udt://127.0.0.1:" + theirs, echoing(), rendezvous).sync().channel();
            assertTrue(other.waitFor(60, TimeUnit.SECONDS), "the C++ rendezvous peer finished");
            String out = read(other.getInputStream());
            assertEquals(0, other.exitValue(), out);
            assertTrue(out.contains("VERIFIED " + size), out);
            ch.close().await(10, TimeUnit.SECONDS);
        } finally {
            other.destroyForcibly();
        }
    }

    /** The conformance suite's echo: writes back what it reads. */
    private static io.netty.channel.ChannelHandler echoing() {
        return io.ferry.transport.conformance.EchoHandler.INSTANCE;
    }

    private static int announcedPort(BufferedReader lines) throws IOException {
        String first = lines.readLine();
        assertTrue(first != null && first.startsWith("PORT "), "the C++ peer announces its port: " + first);
        return Integer.parseInt(first.substring(5).trim());
    }

    private static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        return b;
    }

    private static long fnv(long bytes) {
        long h = 0xcbf29ce484222325L;
        for (long i = 0; i < bytes; i++) {
            h = (h ^ ((i * 31 + 7) & 0xff)) * 0x100000001b3L;
        }
        return h;
    }

    private static String read(InputStream in) throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }
}
