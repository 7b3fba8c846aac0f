package io.ferry.cli.transfer;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sending with sendfile where the channel allows it, buffers elsewhere, and the sender's hash cache. */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZeroCopyAndHashCacheTest {

    @TempDir
    Path tmp;
    private Path inbox;
    private Path outbox;
    private Transports ferry;
    private Channel server;

    @BeforeEach
    void setUp() throws Exception {
        inbox = Files.createDirectories(tmp.resolve("inbox"));
        outbox = Files.createDirectories(tmp.resolve("outbox"));
        ferry = Transports.create();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (server != null) {
            server.close().sync();
        }
        ferry.close();
    }

    private Path file(String name, int size, long seed) throws Exception {
        byte[] data = new byte[size];
        new SplittableRandom(seed).nextBytes(data);
        return Files.write(outbox.resolve(name), data);
    }

    private static ChannelOptions streams(int n) {
        return ChannelOptions.builder().set(FerryChannelOption.STREAMS, n).build();
    }

    /** A receiver on tcp:// taking any number of streams (as ferry receive does). */
    private int receiver() throws Exception {
        server = ferry.listen("tcp://127.0.0.1:0", new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                new FileReceiveSession(inbox, true, new ReceiverEvents() {
                    @Override
                    public void stored(FileOutcome outcome) {
                    }

                    @Override
                    public void failed(String message) {
                    }
                }).addTo(ch.pipeline());
            }
        }, streams(1)).sync().channel();
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    private FileSendSession send(int port, int streams, SendSettings settings, Path... files) throws Exception {
        FileSendSession session = new FileSendSession(SendPlan.of(List.of(files)), settings, ProgressListener.NONE);
        ferry.connect("tcp://127.0.0.1:" + port, new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                session.addTo(ch.pipeline());
            }
        }, streams(streams)).sync();
        session.result().get(30, TimeUnit.SECONDS);
        return session;
    }

    @Test
    void oneTcpStreamSendsWithSendfileAndDeliversIdenticalBytes() throws Exception {
        int port = receiver();
        Path[] files = {file("a.bin", 3_000_001, 1), file("b.bin", 65_536, 2), file("c.bin", 1, 3), file("empty.bin", 0, 4)};
        FileSendSession session = send(port, 1, SendSettings.defaults().withChunkSize(64 * 1024), files);
        assertTrue(session.sendsZeroCopy(), "one TCP stream without TLS takes file regions");
        SessionResult result = session.result().get();
        assertTrue(result.ok(), result.toString());
        for (Path f : files) {
            assertArrayEquals(Files.readAllBytes(f), Files.readAllBytes(inbox.resolve(f.getFileName().toString())), f.toString());
        }
    }

    @Test
    void fourStreamsSendBuffersAndDeliverIdenticalBytes() throws Exception {
        int port = receiver();
        Path[] files = {file("a.bin", 3_000_001, 5), file("b.bin", 700_000, 6)};
        FileSendSession session = send(port, 4, SendSettings.defaults().withChunkSize(64 * 1024), files);
        assertFalse(session.sendsZeroCopy(), "blocks over four streams are cut from buffers");
        SessionResult result = session.result().get();
        assertTrue(result.ok(), result.toString());
        for (Path f : files) {
            assertArrayEquals(Files.readAllBytes(f), Files.readAllBytes(inbox.resolve(f.getFileName().toString())), f.toString());
        }
    }

    @Test
    void zeroCopyCanBeTurnedOff() throws Exception {
        int port = receiver();
        Path f = file("a.bin", 1_000_000, 7);
        FileSendSession session = send(port, 1, SendSettings.defaults().withZeroCopy(false), f);
        assertFalse(session.sendsZeroCopy());
        assertTrue(session.result().get().ok());
        assertArrayEquals(Files.readAllBytes(f), Files.readAllBytes(inbox.resolve("a.bin")));
    }

    @Test
    void theCacheAnswersOnlyWhileSizeModificationTimeAndFileKeyMatch() throws Exception {
        HashCache cache = new HashCache(tmp.resolve("cache/sha256-cache"), Checksum.SHA256);
        Path f = file("a.bin", 10_000, 8);
        Files.setLastModifiedTime(f, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        HashCache.Stat stat = HashCache.Stat.of(f);
        byte[] sha = sha256(f);
        cache.remember(f, stat, stat, System.currentTimeMillis() * 1_000_000L, sha);
        assertArrayEquals(sha, cache.lookup(f, HashCache.Stat.of(f)).orElseThrow());
        assertArrayEquals(sha, new HashCache(cache.store(), Checksum.SHA256).lookup(f, HashCache.Stat.of(f)).orElseThrow(), "kept on disk");
        HashCache preloaded = new HashCache(cache.store(), Checksum.SHA256);
        preloaded.loadInBackground();
        assertArrayEquals(sha, preloaded.lookup(f, HashCache.Stat.of(f)).orElseThrow(), "read on a thread of its own, then looked up");

        Files.setLastModifiedTime(f, FileTime.fromMillis(System.currentTimeMillis() - 30_000));
        assertTrue(cache.lookup(f, HashCache.Stat.of(f)).isEmpty(), "another modification time");
        Files.setLastModifiedTime(f, FileTime.fromMillis(stat.modifiedNanos() / 1_000_000));
        assertTrue(cache.lookup(f, HashCache.Stat.of(f)).isPresent(), "the same modification time again");
        Files.write(f, new byte[1], StandardOpenOption.APPEND);
        Files.setLastModifiedTime(f, FileTime.fromMillis(stat.modifiedNanos() / 1_000_000));
        assertTrue(cache.lookup(f, HashCache.Stat.of(f)).isEmpty(), "another size");

        Path replaced = file("b.bin", 10_000, 8);
        Files.setLastModifiedTime(replaced, FileTime.fromMillis(stat.modifiedNanos() / 1_000_000));
        Files.move(replaced, f, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertEquals(stat.size(), HashCache.Stat.of(f).size());
        assertTrue(cache.lookup(f, HashCache.Stat.of(f)).isEmpty(), "another file (inode) under the same name");
    }

    @Test
    void manyFilesRememberedAtOnceAreWrittenOnceAndAllOfThemOnFlush() throws Exception {
        HashCache cache = new HashCache(tmp.resolve("cache/crc32c-cache"), Checksum.CRC32C);
        int count = 200;
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Path f = file("m" + i + ".bin", 100, 20 + i);
            Files.setLastModifiedTime(f, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
            files.add(f);
        }
        long now = System.currentTimeMillis() * 1_000_000L;
        for (Path f : files) {
            HashCache.Stat stat = HashCache.Stat.of(f);
            cache.remember(f, stat, stat, now, Checksum.CRC32C.newDigest().digest(Files.readAllBytes(f)));
        }
        // The first entry was written at once; the rest waits for the interval or flush(), not one rewrite per file.
        // (Only a pause of a second between two of these remember() calls would write more, never all.)
        long onDisk = Files.readAllLines(cache.store()).size();
        assertTrue(onDisk >= 1 && onDisk < count, "lines in the store before flush(): " + onDisk);
        cache.flush();
        assertEquals(count, Files.readAllLines(cache.store()).size(), "every entry after flush()");
        HashCache reread = new HashCache(cache.store(), Checksum.CRC32C);
        for (Path f : files) {
            assertTrue(reread.lookup(f, HashCache.Stat.of(f)).isPresent(), "kept on disk: " + f);
        }
    }

    @Test
    void aFileModifiedJustBeforeHashingIsNotRemembered() throws Exception {
        HashCache cache = new HashCache(tmp.resolve("cache/sha256-cache"), Checksum.SHA256);
        Path f = file("fresh.bin", 10_000, 9);
        HashCache.Stat stat = HashCache.Stat.of(f);
        cache.remember(f, stat, stat, stat.modifiedNanos() + HashCache.RACY_NANOS / 2, sha256(f));
        assertTrue(cache.lookup(f, stat).isEmpty(), "its modification time may not change on the next write");
        HashCache.Stat grown = new HashCache.Stat(stat.size() + 1, stat.modifiedNanos(), stat.fileKey());
        cache.remember(f, stat, grown, stat.modifiedNanos() + 10 * HashCache.RACY_NANOS, sha256(f));
        assertTrue(cache.lookup(f, stat).isEmpty(), "it changed while it was hashed");
    }

    @ParameterizedTest
    @EnumSource(Checksum.class)
    void aRepeatedSendUsesTheRememberedDigestAndAStaleOneFailsTheFileAndIsForgotten(Checksum checksum) throws Exception {
        int port = receiver();
        HashCache cache = new HashCache(tmp.resolve("cache/" + checksum.label() + "-cache"), checksum);
        SendSettings settings = SendSettings.defaults().withChecksum(checksum).withHashCache(cache);
        Path f = file("a.bin", 2_000_000, 10);
        Files.setLastModifiedTime(f, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        assertTrue(send(port, 1, settings, f).result().get().ok());
        assertArrayEquals(checksum.newDigest().digest(Files.readAllBytes(f)), cache.lookup(f, HashCache.Stat.of(f)).orElseThrow(), "remembered after the first send");

        Files.delete(inbox.resolve("a.bin"));
        SessionResult again = send(port, 1, settings, f).result().get();
        assertTrue(again.ok(), again.toString());
        assertArrayEquals(checksum.newDigest().digest(Files.readAllBytes(f)), again.files().get(0).digest().orElseThrow());

        // the content changes while size and modification time stay: the remembered digest is stale
        HashCache.Stat before = HashCache.Stat.of(f);
        byte[] changed = Files.readAllBytes(f);
        changed[1234] ^= 1;
        Files.write(f, changed);
        Files.setLastModifiedTime(f, FileTime.from(before.modifiedNanos(), TimeUnit.NANOSECONDS));
        assertEquals(before, HashCache.Stat.of(f));
        Files.delete(inbox.resolve("a.bin"));
        SessionResult stale = send(port, 1, settings, f).result().get();
        assertFalse(stale.ok(), "the receiver's checksum does not match the remembered one");
        assertTrue(stale.files().get(0).message().contains("does not match"), stale.files().get(0).message());
        assertFalse(Files.exists(inbox.resolve("a.bin")), "nothing wrong was stored");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (cache.lookup(f, HashCache.Stat.of(f)).isPresent() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(cache.lookup(f, HashCache.Stat.of(f)).isEmpty(), "the stale digest was forgotten");
        SessionResult fresh = send(port, 1, settings, f).result().get();
        assertTrue(fresh.ok(), fresh.toString());
        assertArrayEquals(changed, Files.readAllBytes(inbox.resolve("a.bin")));
    }

    @Test
    void aFileThatChangesWhileItIsSentFailsAndNothingIsStored() throws Exception {
        int port = receiver();
        Path f = file("moving.bin", 3_000_000, 11);
        FileSendSession session = new FileSendSession(SendPlan.of(List.of(f)),
                SendSettings.defaults().withChunkSize(64 * 1024).withRateLimit(2_000_000), ProgressListener.NONE);
        ferry.connect("tcp://127.0.0.1:" + port, new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                session.addTo(ch.pipeline());
            }
        }, streams(1)).sync();
        // change it once the receiver holds part of it (the rate limit leaves about 1.5 s of sending)
        Path part = inbox.resolve(".moving.bin.ferry-part");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((!Files.exists(part) || Files.size(part) < 200_000) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(Files.size(part) >= 200_000, "the transfer started");
        byte[] changed = Files.readAllBytes(f);
        changed[10] ^= 1;
        Files.write(f, changed);
        Files.setLastModifiedTime(f, FileTime.fromMillis(System.currentTimeMillis() + 5_000));
        SessionResult result = session.result().get(30, TimeUnit.SECONDS);
        assertFalse(result.ok(), "the file changed under the sender");
        String message = result.files().get(0).message();
        assertTrue(message.contains("changed while it was being sent") || message.contains("does not match"), message);
        assertFalse(Files.exists(inbox.resolve("moving.bin")), "nothing was stored");
    }

    private static byte[] sha256(Path f) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f));
    }
}
