package io.ferry.examples.transfer;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The file-transfer protocol over real TCP on loopback, including the ways a transfer can go wrong. */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FileTransferTest {

    @TempDir
    Path tmp;
    private Path inbox;
    private Transports ferry;

    @BeforeEach
    void setUp() throws Exception {
        inbox = Files.createDirectories(tmp.resolve("inbox"));
        ferry = Transports.create();
    }

    @AfterEach
    void tearDown() {
        ferry.close();
    }

    private Path file(String name, int size, long seed) throws Exception {
        byte[] data = new byte[size];
        new SplittableRandom(seed).nextBytes(data);
        return Files.write(tmp.resolve(name), data);
    }

    @Test
    void movesAFileIntactAndReportsBothSides() throws Exception {
        Path source = file("data.bin", 5_000_000, 1);
        LoopbackTransfer.Outcome outcome = LoopbackTransfer.run(ferry, "tcp", ChannelOptions.empty(), source, inbox,
                ProgressListener.NONE, 30);
        Path stored = inbox.resolve("data.bin");
        assertArrayEquals(Files.readAllBytes(source), Files.readAllBytes(stored));
        assertEquals(stored, outcome.received().storedAt().orElseThrow());
        byte[] expected = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(source));
        assertArrayEquals(expected, outcome.sent().sha256());
        assertArrayEquals(expected, outcome.received().sha256());
        assertEquals(5_000_000, outcome.sent().statistics().orElseThrow().bytesSent() - offerAndTrailerBytes("data.bin"));
        assertNoPartialFiles();
    }

    @Test
    void movesAnEmptyFile() throws Exception {
        Path source = Files.write(tmp.resolve("empty"), new byte[0]);
        LoopbackTransfer.run(ferry, "tcp", ChannelOptions.empty(), source, inbox, ProgressListener.NONE, 30);
        assertEquals(0, Files.size(inbox.resolve("empty")));
    }

    @Test
    void refusesAnExistingFileWithoutOverwrite() throws Exception {
        Path source = file("exists.bin", 1000, 2);
        Files.writeString(inbox.resolve("exists.bin"), "keep me");
        Receiver receiver = receiver(false);
        TransferFailedException e = assertThrows(TransferFailedException.class, () -> send(receiver, source, "exists.bin"));
        assertTrue(e.getMessage().contains("already exists"), e.getMessage());
        assertEquals("keep me", Files.readString(inbox.resolve("exists.bin")), "the existing file is untouched");
        receiver.close();
    }

    @Test
    void refusesPathTraversalAndWritesNothingOutside() throws Exception {
        Path source = file("evil.bin", 1000, 3);
        Receiver receiver = receiver(true);
        TransferFailedException e = assertThrows(TransferFailedException.class, () -> send(receiver, source, "../escaped.bin"));
        assertTrue(e.getMessage().contains("refused file name"), e.getMessage());
        assertFalse(Files.exists(tmp.resolve("escaped.bin")), "nothing was written outside the receiving directory");
        assertTrue(receiver.failures.get(5, TimeUnit.SECONDS).contains("path component '..'"));
        receiver.close();
    }

    @Test
    void receiverRefusesAPeerSpeakingSomethingElse() throws Exception {
        Receiver receiver = receiver(true);
        ByteArrayOutputStream reply = new ByteArrayOutputStream();
        CompletableFuture<Void> closed = new CompletableFuture<>();
        Channel client = ferry.connect("tcp://127.0.0.1:" + receiver.port(), new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf b = (ByteBuf) msg;
                byte[] bytes = new byte[b.readableBytes()];
                b.readBytes(bytes);
                reply.writeBytes(bytes);
                ReferenceCountUtil.release(msg);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                closed.complete(null);
            }
        }).sync().channel();
        client.writeAndFlush(Unpooled.copiedBuffer("GET / HTTP/1.1\r\nHost: x\r\n\r\n", StandardCharsets.US_ASCII));
        closed.get(10, TimeUnit.SECONDS);
        assertTrue(reply.toString(StandardCharsets.UTF_8).contains("does not speak the ferry protocol"), reply.toString(StandardCharsets.UTF_8));
        assertTrue(receiver.failures.get(5, TimeUnit.SECONDS).contains("does not speak the ferry protocol"));
        receiver.close();
    }

    @Test
    void senderRefusesAPeerSpeakingSomethingElse() throws Exception {
        ChannelFuture bound = ferry.listen("tcp://127.0.0.1:0", new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ReferenceCountUtil.release(msg);
                        ctx.writeAndFlush(Unpooled.copiedBuffer("HTTP/1.1 400 Bad Request\r\n\r\n", StandardCharsets.US_ASCII));
                    }
                });
            }
        }).sync();
        Path source = file("x.bin", 100, 4);
        Receiver notFerry = new Receiver(bound.channel(), new CompletableFuture<>());
        TransferFailedException e = assertThrows(TransferFailedException.class, () -> send(notFerry, source, "x.bin"));
        assertTrue(e.getMessage().contains("does not speak the ferry protocol"), e.getMessage());
        notFerry.close();
    }

    @Test
    void connectionLostMidTransferLeavesNoFileBehind() throws Exception {
        Receiver receiver = receiver(true);
        Channel client = ferry.connect("tcp://127.0.0.1:" + receiver.port(), new ChannelInboundHandlerAdapter()).sync().channel();
        byte[] name = "partial.bin".getBytes(StandardCharsets.UTF_8);
        ByteBuf offer = Unpooled.buffer().writeBytes(TransferProtocol.MAGIC).writeByte(TransferProtocol.VERSION)
                .writeShort(name.length).writeBytes(name).writeLong(1_000_000);
        client.writeAndFlush(offer);
        client.writeAndFlush(Unpooled.wrappedBuffer(new byte[300_000])).sync();
        client.close().sync();
        String failure = receiver.failures.get(10, TimeUnit.SECONDS);
        assertTrue(failure.contains("ended after 300000 of 1000000 bytes"), failure);
        assertFalse(Files.exists(inbox.resolve("partial.bin")), "no file under its final name");
        assertNoPartialFiles();
        receiver.close();
    }

    @Test
    void corruptedContentIsDetectedAndDiscarded() throws Exception {
        Receiver receiver = receiver(true);
        CompletableFuture<String> verdict = new CompletableFuture<>();
        Channel client = ferry.connect("tcp://127.0.0.1:" + receiver.port(), new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                verdict.complete(((ByteBuf) msg).toString(StandardCharsets.UTF_8));
                ReferenceCountUtil.release(msg);
            }
        }).sync().channel();
        byte[] name = "bad.bin".getBytes(StandardCharsets.UTF_8);
        client.write(Unpooled.buffer().writeBytes(TransferProtocol.MAGIC).writeByte(TransferProtocol.VERSION)
                .writeShort(name.length).writeBytes(name).writeLong(4));
        client.write(Unpooled.wrappedBuffer(new byte[]{1, 2, 3, 4}));
        client.writeAndFlush(Unpooled.wrappedBuffer(new byte[32])); // not the SHA-256 of the content
        assertTrue(verdict.get(10, TimeUnit.SECONDS).contains("does not match"));
        assertFalse(Files.exists(inbox.resolve("bad.bin")));
        assertNoPartialFiles();
        client.close().sync();
        receiver.close();
    }

    @Test
    void unreachableReceiverFailsTheConnect() throws Exception {
        ChannelFuture f = ferry.connect("tcp://127.0.0.1:1", new ChannelInboundHandlerAdapter());
        assertTrue(f.await(10, TimeUnit.SECONDS));
        assertInstanceOf(java.net.ConnectException.class, f.cause());
    }

    private static long offerAndTrailerBytes(String name) {
        return TransferProtocol.OFFER_PREFIX + name.getBytes(StandardCharsets.UTF_8).length + 8 + TransferProtocol.DIGEST_LENGTH;
    }

    private void assertNoPartialFiles() throws Exception {
        try (Stream<Path> files = Files.walk(inbox)) {
            List<Path> partial = files.filter(p -> p.getFileName().toString().endsWith(".ferry-part")).toList();
            assertTrue(partial.isEmpty(), "temporary files left behind: " + partial);
        }
    }

    private record Receiver(Channel server, CompletableFuture<String> failures) {
        int port() {
            return ((InetSocketAddress) server.localAddress()).getPort();
        }

        void close() throws InterruptedException {
            server.close().sync();
        }
    }

    private Receiver receiver(boolean overwrite) throws InterruptedException {
        CompletableFuture<String> failures = new CompletableFuture<>();
        FileReceiver.Events events = FileReceiver.events(r -> { }, failures::complete);
        Channel server = ferry.listen("tcp://127.0.0.1:0", new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new FileReceiver(inbox, overwrite, ProgressListener.NONE, events));
            }
        }).sync().channel();
        return new Receiver(server, failures);
    }

    private TransferResult send(Receiver receiver, Path file, String name) throws Exception {
        FileSender sender = new FileSender(file, name, ProgressListener.NONE, 64 * 1024);
        ferry.connect("tcp://127.0.0.1:" + receiver.port(), new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(sender);
            }
        }).sync();
        try {
            return sender.result().get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }
}
