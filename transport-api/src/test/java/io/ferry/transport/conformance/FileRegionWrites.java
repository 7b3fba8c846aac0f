package io.ferry.transport.conformance;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FileRegion} writes, as engines write files (Spark's shuffle blocks, a static file server): every
 * transport takes them, whether it sends them with {@code sendfile} or reads them a chunk at a time, and
 * delivers their bytes in order among buffers written before and after. Every transport runs these as
 * part of {@link TransportConformanceTest}.
 */
interface FileRegionWrites extends ConformanceEndpoints {

    /** Runs {@code test} with a temporary file holding {@code content}, removed afterwards. */
    private static void withFile(byte[] content, FileTest test) throws Exception {
        Path file = Files.createTempFile("ferry-region", ".bin");
        try {
            Files.write(file, content);
            test.run(file);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** A test body given the file. */
    interface FileTest {
        void run(Path file) throws Exception;
    }

    @Test
    @Timeout(120)
    default void aFileRegionArrivesByteForByteAndIsReleasedOnceWritten() throws Exception {
        byte[] content = new byte[5 * 1024 * 1024 + 77];
        new SplittableRandom(44).nextBytes(content);
        withFile(content, file -> {
            ByteCollector collector = new ByteCollector(content.length);
            Channel server = listenForTest(ch -> ch.pipeline().addLast(collector));
            Channel client = connectForTest(server, ch -> { });
            try {
                FileRegion region = new DefaultFileRegion(file.toFile(), 0, content.length);
                ChannelFuture written = client.writeAndFlush(region);
                assertArrayEquals(content, TransportConformanceTest.await(collector.done(), "the file's bytes"));
                assertTrue(written.await(30, TimeUnit.SECONDS) && written.isSuccess(), () -> "the write failed: " + written.cause());
                assertEquals(0, region.refCnt(), "the channel releases a region it has written");
                assertEquals(content.length, region.transferred());
            } finally {
                client.close().sync();
                server.close().sync();
            }
        });
    }

    /**
     * A queued file region holds the channel's writability as a buffer of its size would, with no estimator
     * set (engines never set one; Netty's default counts a region as nothing), so a writer that waits for
     * writability does not queue file after file without bound.
     */
    @Test
    @Timeout(120)
    default void aQueuedFileRegionMakesTheChannelUnwritableUntilItIsSent() throws Exception {
        byte[] content = new byte[8 * 1024 * 1024];
        new SplittableRandom(48).nextBytes(content);
        withFile(content, file -> {
            ByteCollector collector = new ByteCollector(content.length);
            Channel server = listenForTest(ch -> ch.pipeline().addLast(collector));
            Channel client = connectForTest(server, ch -> { });
            try {
                java.util.concurrent.CompletableFuture<Boolean> writableAfterWrite = new java.util.concurrent.CompletableFuture<>();
                java.util.concurrent.CompletableFuture<ChannelFuture> written = new java.util.concurrent.CompletableFuture<>();
                client.eventLoop().execute(() -> {
                    ChannelFuture w = client.write(new DefaultFileRegion(file.toFile(), 0, content.length));
                    writableAfterWrite.complete(client.isWritable());
                    client.flush();
                    written.complete(w);
                });
                assertTrue(!TransportConformanceTest.await(writableAfterWrite, "the write"), "an 8 MiB region queued makes the channel unwritable");
                assertArrayEquals(content, TransportConformanceTest.await(collector.done(), "the file's bytes"));
                ChannelFuture w = TransportConformanceTest.await(written, "the write");
                assertTrue(w.await(30, TimeUnit.SECONDS) && w.isSuccess(), () -> "the write failed: " + w.cause());
                java.util.concurrent.CompletableFuture<Boolean> writableAfterSend = new java.util.concurrent.CompletableFuture<>();
                client.eventLoop().execute(() -> writableAfterSend.complete(client.isWritable()));
                assertTrue(TransportConformanceTest.await(writableAfterSend, "writability"), "writable again once the region was sent");
            } finally {
                client.close().sync();
                server.close().sync();
            }
        });
    }

    @Test
    @Timeout(120)
    default void partsOfAFileBetweenBuffersKeepTheirOrder() throws Exception {
        byte[] content = new byte[3 * 1024 * 1024];
        new SplittableRandom(45).nextBytes(content);
        withFile(content, file -> {
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            byte[] head = "head".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            byte[] middle = new byte[100_000];
            new SplittableRandom(46).nextBytes(middle);
            expected.write(head);
            expected.write(content, 1000, 1_500_000);
            expected.write(middle);
            expected.write(content, 2_000_000, 1_000_000);
            byte[] want = expected.toByteArray();
            ByteCollector collector = new ByteCollector(want.length);
            Channel server = listenForTest(ch -> ch.pipeline().addLast(collector));
            Channel client = connectForTest(server, ch -> { });
            try {
                client.write(Unpooled.wrappedBuffer(head));
                client.write(new DefaultFileRegion(file.toFile(), 1000, 1_500_000));
                client.write(Unpooled.wrappedBuffer(middle));
                ChannelFuture last = client.writeAndFlush(new DefaultFileRegion(file.toFile(), 2_000_000, 1_000_000));
                assertArrayEquals(want, TransportConformanceTest.await(collector.done(), "buffers and file regions in order"));
                assertTrue(last.await(30, TimeUnit.SECONDS) && last.isSuccess(), () -> "the write failed: " + last.cause());
            } finally {
                client.close().sync();
                server.close().sync();
            }
        });
    }

    @Test
    @Timeout(60)
    default void aRegionLongerThanItsFileFailsItsWriteAndNothingLeaks() throws Exception {
        withFile(new byte[10_000], file -> {
            Channel server = listenForTest(ch -> { });
            Channel client = connectForTest(server, ch -> { });
            try {
                FileRegion region = new DefaultFileRegion(file.toFile(), 0, 50_000);
                ChannelFuture written = client.writeAndFlush(region);
                assertTrue(written.await(30, TimeUnit.SECONDS), "the write never completed");
                if (written.isSuccess()) {
                    // handed on whole to a kernel socket (a striped channel's one TCP member sends it with
                    // sendfile): its failure there ends the connection instead
                    assertTrue(client.closeFuture().await(30, TimeUnit.SECONDS), "a region past the end of its file was taken as written");
                }
                assertEquals(0, region.refCnt());
            } finally {
                client.close().await(30, TimeUnit.SECONDS);
                server.close().sync();
            }
        });
    }
}
