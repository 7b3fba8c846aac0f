package io.ferry.transport.udt;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
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
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Ferry's UDT against the C++ reference implementation: Debian's {@code libudt} 4.11 (package
 * {@code libudt-dev}), through a small peer program compiled with g++ for the test. Ferry runs in
 * {@link UdtChannelOption#RAW_STREAM} mode, the plain UDT byte stream other UDT applications speak.
 * Skips with the reason where the compiler or the library is missing; CI installs both.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LibudtInteropTest {

    private static final ChannelOptions RAW = ChannelOptions.builder().set(UdtChannelOption.RAW_STREAM, true).build();

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
        Path source = Path.of("src/test/resources/interop/udt_peer.cpp").toAbsolutePath();
        peer = Path.of("target/udt_peer").toAbsolutePath();
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
        Process server = new ProcessBuilder(peer.toString(), "serve").redirectErrorStream(true).start();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.US_ASCII));
            String first = lines.readLine();
            assertTrue(first != null && first.startsWith("PORT "), "the C++ peer announces its port: " + first);
            int port = Integer.parseInt(first.substring(5).trim());
            int size = 4 << 20;
            Received echo = new Received(size);
            Channel client = ferry.connect("udt://127.0.0.1:" + port, echo, RAW).sync().channel();
            byte[] payload = new byte[size];
            new SplittableRandom(11).nextBytes(payload);
            client.writeAndFlush(Unpooled.wrappedBuffer(payload)).sync();
            assertArrayEquals(payload, echo.all.get(60, TimeUnit.SECONDS), "libudt echoed every byte back");
            client.close().sync();
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "the C++ peer saw the close and ended");
            assertEquals("ECHOED " + size, lines.readLine());
            assertEquals(0, server.exitValue());
        } finally {
            server.destroyForcibly();
        }
    }

    @Test
    void cppUdtClientTalksToAFerryListener() throws Exception {
        Channel listener = ferry.listen("udt://127.0.0.1:0", new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ctx.write(msg);
                    }

                    @Override
                    public void channelReadComplete(ChannelHandlerContext ctx) {
                        ctx.flush();
                    }
                });
            }
        }, RAW).sync().channel();
        int port = ((InetSocketAddress) listener.localAddress()).getPort();
        Process client = new ProcessBuilder(peer.toString(), "send", Integer.toString(port), Integer.toString(3_000_000))
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
