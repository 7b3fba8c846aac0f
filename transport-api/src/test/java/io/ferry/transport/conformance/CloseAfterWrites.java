package io.ferry.transport.conformance;

import io.ferry.transport.UndeliveredDataException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.stream.ChunkedFile;
import io.netty.handler.stream.ChunkedWriteHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A close right after a write, as engines close (a file server that answers and hangs up): whatever the
 * message type Netty carries to a channel ({@code ByteBuf}, a composite, {@code FileRegion}, a
 * {@code ChunkedInput} through {@link ChunkedWriteHandler}) and wherever the close is called from, the end of
 * stream goes out behind everything written before it and the close succeeds once the peer has it all.
 * Every transport runs these as part of {@link TransportConformanceTest}.
 */
interface CloseAfterWrites extends ConformanceEndpoints {

    /** What the writer writes before it closes. */
    enum Payload {
        /** One buffer. */
        BUFFER,
        /** One {@link DefaultFileRegion} over the whole file. */
        FILE_REGION,
        /** A {@link ChunkedFile} through {@link ChunkedWriteHandler}. */
        CHUNKED_FILE,
        /** A buffer, a region, a chunked part of the file and a composite of a direct and a heap buffer, in that order. */
        MIXED
    }

    /** Where the close is called from. */
    enum Closer {
        /** The thread that wrote, right after its last write (the application's thread). */
        WRITING_THREAD,
        /** The channel's event loop, in the same task as the writes (a handler that answers and hangs up). */
        EVENT_LOOP,
        /** The last write's listener, once that write completed. */
        WRITE_LISTENER
    }

    /**
     * The file each case sends from: 2 MiB of random bytes, several times any channel's high-water mark and
     * a uTP region's 256 KiB chunk, so that the close comes while most of it is still queued.
     */
    int FILE_BYTES = 2 << 20;
    /** A unit of the mixed case: an eighth of the file. */
    int PART = FILE_BYTES / 8;

    static Stream<Arguments> closeCases() {
        List<Arguments> cases = new ArrayList<>();
        for (Payload p : Payload.values()) {
            for (Closer c : Closer.values()) {
                cases.add(Arguments.of(p, c));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} then close from the {1}")
    @MethodSource("io.ferry.transport.conformance.CloseAfterWrites#closeCases")
    @Timeout(120)
    default void aCloseRightAfterWritingDeliversEverythingBeforeTheEndOfStream(Payload payload, Closer closer) throws Exception {
        byte[] content = new byte[FILE_BYTES];
        new SplittableRandom(57).nextBytes(content);
        Path file = Files.createTempFile("ferry-close", ".bin");
        try {
            Files.write(file, content);
            byte[] expected = expectedBytes(payload, content);
            EndOfStreamSink sink = new EndOfStreamSink();
            Channel server = listenForTest(ch -> ch.pipeline().addLast(sink));
            boolean chunked = payload == Payload.CHUNKED_FILE || payload == Payload.MIXED;
            Channel client = connectForTest(server, ch -> {
                if (chunked) {
                    ch.pipeline().addLast(new ChunkedWriteHandler());
                }
            });
            try {
                List<ChannelFuture> writes = new ArrayList<>();
                CompletableFuture<ChannelFuture> closing = new CompletableFuture<>();
                Runnable writeThenClose = () -> {
                    try {
                        writeAll(client, payload, file, content, writes);
                    } catch (Exception e) {
                        closing.completeExceptionally(e);
                        return;
                    }
                    if (closer == Closer.WRITE_LISTENER) {
                        writes.get(writes.size() - 1).addListener(f -> closing.complete(client.close()));
                    } else {
                        closing.complete(client.close());
                    }
                };
                if (closer == Closer.EVENT_LOOP) {
                    client.eventLoop().execute(writeThenClose);
                } else {
                    writeThenClose.run();
                }
                ChannelFuture closed = TransportConformanceTest.await(closing, "the close call");
                assertTrue(closed.await(60, TimeUnit.SECONDS), "the close completed");
                assertTrue(closed.isSuccess(), () -> "the close succeeded: " + closed.cause());
                for (ChannelFuture w : writes) {
                    assertTrue(w.isDone() && w.isSuccess(), () -> "every write succeeded before the close did: " + w.cause());
                }
                EndOfStreamSink.Received got = TransportConformanceTest.await(sink.ended, "the receiver sees the end of stream");
                assertEquals(expected.length, got.bytes(), "bytes before the end of stream");
                assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(expected), got.sha256(), "the bytes are the ones written, in order");
            } finally {
                client.close().await(30, TimeUnit.SECONDS);
                server.close().sync();
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * The engine's pattern: a server's handler writes a 64 MiB {@link DefaultFileRegion} (the suite's bulk size,
     * less for a transport far slower on loopback) when a client connects and closes at once, on its event loop;
     * the close succeeds only once the client has the whole file.
     */
    @Test
    @Timeout(180)
    default void aServerThatWritesAFileAndHangsUpDeliversTheWholeFile() throws Exception {
        int size = bulkBytesForTest() / (1 << 20) * (1 << 20);
        Path file = Files.createTempFile("ferry-hangup", ".bin");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            byte[] block = new byte[1 << 20];
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            SplittableRandom random = new SplittableRandom(58);
            for (int i = 0; i < size / block.length; i++) {
                random.nextBytes(block);
                raf.write(block);
                digest.update(block);
            }
            byte[] expected = digest.digest();
            CompletableFuture<ChannelFuture> serverClose = new CompletableFuture<>();
            CompletableFuture<ChannelFuture> serverWrite = new CompletableFuture<>();
            Channel server = listenForTest(ch -> ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    serverWrite.complete(ctx.writeAndFlush(new DefaultFileRegion(file.toFile(), 0, size)));
                    serverClose.complete(ctx.close());
                    ctx.fireChannelActive();
                }
            }));
            EndOfStreamSink sink = new EndOfStreamSink();
            Channel client = connectForTest(server, ch -> ch.pipeline().addLast(sink));
            try {
                EndOfStreamSink.Received got = TransportConformanceTest.await(sink.ended, "the client sees the end of stream");
                assertEquals(size, got.bytes(), "bytes before the end of stream");
                assertArrayEquals(expected, got.sha256(), "the file's bytes, in order");
                ChannelFuture closed = TransportConformanceTest.await(serverClose, "the server's close");
                assertTrue(closed.await(60, TimeUnit.SECONDS) && closed.isSuccess(), () -> "the server's close succeeded: " + closed.cause());
                ChannelFuture written = TransportConformanceTest.await(serverWrite, "the server's write");
                assertTrue(written.isSuccess(), () -> "the server's write succeeded: " + written.cause());
            } finally {
                client.close().await(30, TimeUnit.SECONDS);
                server.close().sync();
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static byte[] expectedBytes(Payload payload, byte[] content) {
        if (payload != Payload.MIXED) {
            return content;
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.write(content, 0, PART);
        out.write(content, PART, 3 * PART);
        out.write(content, 4 * PART, 3 * PART);
        out.write(content, 7 * PART, PART);
        return out.toByteArray();
    }

    /** Writes {@code payload} (flushing the last write), adding each write's future to {@code writes}. */
    private static void writeAll(Channel ch, Payload payload, Path file, byte[] content, List<ChannelFuture> writes) throws Exception {
        switch (payload) {
            case BUFFER -> writes.add(ch.writeAndFlush(Unpooled.wrappedBuffer(content)));
            case FILE_REGION -> writes.add(ch.writeAndFlush(new DefaultFileRegion(file.toFile(), 0, content.length)));
            case CHUNKED_FILE -> writes.add(ch.writeAndFlush(new ChunkedFile(file.toFile(), 64 * 1024)));
            case MIXED -> {
                writes.add(ch.write(Unpooled.wrappedBuffer(content, 0, PART)));
                writes.add(ch.write(new DefaultFileRegion(file.toFile(), PART, 3 * PART)));
                writes.add(ch.write(new ChunkedFile(new RandomAccessFile(file.toFile(), "r"), 4 * PART, 3 * PART, 64 * 1024)));
                CompositeByteBuf composite = ch.alloc().compositeBuffer();
                ByteBuf direct = ch.alloc().directBuffer(PART / 2).writeBytes(content, 7 * PART, PART / 2);
                ByteBuf heap = Unpooled.wrappedBuffer(content, 7 * PART + PART / 2, PART / 2);
                composite.addComponents(true, direct, heap);
                writes.add(ch.writeAndFlush(composite));
            }
            default -> throw new IllegalArgumentException(payload.name());
        }
    }

    /**
     * Digests what arrives until the peer's end of stream (its half-close or the connection's end), then
     * completes with the count and the digest; a failure of the connection fails it.
     */
    final class EndOfStreamSink extends ChannelInboundHandlerAdapter {
        record Received(long bytes, byte[] sha256) {
        }

        final CompletableFuture<Received> ended = new CompletableFuture<>();
        private final MessageDigest digest = PatternStream.sha256();
        private long count;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                count += buf.readableBytes();
                digest.update(buf.nioBuffer());
            } finally {
                buf.release();
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof io.netty.channel.socket.ChannelInputShutdownEvent) {
                end();
            }
            ctx.fireUserEventTriggered(evt);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            end();
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ended.completeExceptionally(cause instanceof UndeliveredDataException ? cause
                    : new AssertionError("the connection failed after " + count + " bytes: " + cause, cause));
            ctx.close();
        }

        private void end() {
            if (!ended.isDone()) {
                ended.complete(new Received(count, digest.digest()));
            }
        }
    }
}
