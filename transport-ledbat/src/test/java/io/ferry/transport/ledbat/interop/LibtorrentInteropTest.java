package io.ferry.transport.ledbat.interop;

import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.ByteToMessageDecoder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Wire compatibility with a real uTP implementation: libtorrent-rasterbar 2.0 (Debian's
 * python3-libtorrent) on loopback, with TCP disabled so every connection is uTP. Skips, saying why,
 * where the package is missing; CI installs it.
 */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LibtorrentInteropTest {

    private static final String PYTHON = "/usr/bin/python3";
    private static Path script;
    private static Transports ferry;

    @TempDir
    Path tmp;

    @BeforeAll
    static void requireLibtorrent() throws Exception {
        boolean available = Files.isExecutable(Path.of(PYTHON))
                && new ProcessBuilder(PYTHON, "-c", "import libtorrent").redirectErrorStream(true).start().waitFor() == 0;
        if (!available) {
            System.out.println("LibtorrentInteropTest skipped: " + PYTHON + " cannot import libtorrent (apt-get install python3-libtorrent)");
        }
        Assumptions.assumeTrue(available, "python3-libtorrent is not installed");
        script = Files.createTempFile("libtorrent_peer", ".py");
        try (InputStream in = LibtorrentInteropTest.class.getResourceAsStream("/interop/libtorrent_peer.py")) {
            Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
        }
        ferry = Transports.create();
    }

    @AfterAll
    static void close() throws IOException {
        if (ferry != null) {
            ferry.close();
        }
        if (script != null) {
            Files.deleteIfExists(script);
        }
    }

    private Process python(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(PYTHON, script.toString()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).directory(tmp.toFile()).redirectError(tmp.resolve("python.err").toFile()).start();
    }

    private String stderr() throws IOException {
        return Files.readString(tmp.resolve("python.err"));
    }

    @Test
    void downloadsAndHashChecksEveryPieceFromALibtorrentSeedOverUtp() throws Exception {
        int size = 3 * 1024 * 1024 + 12345; // a short last piece too
        Process seed = python("seed", tmp.toString(), String.valueOf(size));
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(seed.getInputStream(), StandardCharsets.UTF_8));
            String json = out.readLine();
            assertNotNull(json, () -> "the seed printed its torrent; stderr: " + stderrQuietly());
            int port = Integer.parseInt(field(json, "port"));
            byte[] infoHash = HexFormat.of().parseHex(field(json, "info_hash").replace("\"", ""));
            int pieceLength = Integer.parseInt(field(json, "piece_length"));
            long totalSize = Long.parseLong(field(json, "total_size"));
            List<String> hashes = new ArrayList<>();
            Matcher m = Pattern.compile("\"([0-9a-f]{40})\"").matcher(json.substring(json.indexOf("\"pieces\"")));
            while (m.find()) {
                hashes.add(m.group(1));
            }
            assertEquals((totalSize + pieceLength - 1) / pieceLength, hashes.size());

            byte[] peerId = "-FE0001-ferry-interop".substring(0, 20).getBytes(StandardCharsets.US_ASCII);
            PeerWireClient client = new PeerWireClient(infoHash, peerId, pieceLength, totalSize, hashes);
            ChannelFuture connected = ferry.connect("utp://127.0.0.1:" + port, new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(client);
                }
            });
            assertTrue(connected.await(20, TimeUnit.SECONDS) && connected.isSuccess(), () -> "uTP connect to libtorrent: " + connected.cause());
            byte[] content = client.download().get(60, TimeUnit.SECONDS);
            assertArrayEquals(Files.readAllBytes(tmp.resolve("payload.bin")), content, "every byte as libtorrent seeds it");
            assertTrue(client.remotePeerId()[0] == '-', "libtorrent's peer id: " + new String(client.remotePeerId(), StandardCharsets.ISO_8859_1));
            connected.channel().close().sync();
        } finally {
            seed.getOutputStream().close();
            if (!seed.waitFor(10, TimeUnit.SECONDS)) {
                seed.destroyForcibly();
            }
        }
    }

    @Test
    void libtorrentCompletesAHandshakeWithAFerryUtpServer() throws Exception {
        byte[] ourPeerId = "-FE0001-ferry-server".substring(0, 20).getBytes(StandardCharsets.US_ASCII);
        byte[] infoHash = MessageDigest.getInstance("SHA-1").digest("ferry interop".getBytes(StandardCharsets.US_ASCII));
        CompletableFuture<byte[]> theirHandshake = new CompletableFuture<>();
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        Channel server = ferry.listen("utp://127.0.0.1:0", new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                accepted.complete(ch);
                ch.pipeline().addLast(new ByteToMessageDecoder() {
                    @Override
                    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
                        if (theirHandshake.isDone()) {
                            in.skipBytes(in.readableBytes());
                            return;
                        }
                        if (in.readableBytes() >= PeerWireClient.HANDSHAKE_LENGTH) {
                            byte[] hs = new byte[PeerWireClient.HANDSHAKE_LENGTH];
                            in.readBytes(hs);
                            theirHandshake.complete(hs);
                            ctx.writeAndFlush(PeerWireClient.handshake(ctx, Arrays.copyOfRange(hs, 28, 48), ourPeerId));
                        }
                    }
                });
            }
        }).sync().channel();
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        Process peer = python("connect", "127.0.0.1", String.valueOf(port), HexFormat.of().formatHex(infoHash));
        try {
            byte[] hs = theirHandshake.get(30, TimeUnit.SECONDS);
            assertEquals(19, hs[0]);
            assertArrayEquals(PeerWireClient.PROTOCOL, Arrays.copyOfRange(hs, 1, 20), "libtorrent's handshake arrived intact over uTP");
            assertArrayEquals(infoHash, Arrays.copyOfRange(hs, 28, 48));
            BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
            String verdict = out.readLine();
            assertEquals("HANDSHAKE " + HexFormat.of().formatHex(ourPeerId), verdict,
                    () -> "libtorrent accepted our handshake over uTP; stderr: " + stderrQuietly());
        } finally {
            if (!peer.waitFor(10, TimeUnit.SECONDS)) {
                peer.destroyForcibly();
            }
            // the libtorrent process has exited: nobody is left to acknowledge a graceful close
            Channel child = accepted.getNow(null);
            if (child != null) {
                io.ferry.transport.FerryChannels.abort(child).await(5, TimeUnit.SECONDS);
            }
            server.close().sync();
        }
    }

    private String stderrQuietly() {
        try {
            return stderr();
        } catch (IOException e) {
            return "(unreadable)";
        }
    }

    private static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\": (\"[^\"]*\"|[0-9]+)").matcher(json);
        if (!m.find()) {
            throw new AssertionError("no " + name + " in " + json);
        }
        return m.group(1);
    }
}
