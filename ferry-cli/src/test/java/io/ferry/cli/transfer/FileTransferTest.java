package io.ferry.cli.transfer;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.zip.CRC32C;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The session protocol over real transports on loopback, in one process, including the ways a transfer goes wrong. */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FileTransferTest {

    @TempDir
    Path tmp;
    private Path inbox;
    private Path outbox;
    private Transports ferry;

    @BeforeEach
    void setUp() throws Exception {
        inbox = Files.createDirectories(tmp.resolve("inbox"));
        outbox = Files.createDirectories(tmp.resolve("outbox"));
        ferry = Transports.create();
    }

    @AfterEach
    void tearDown() {
        ferry.close();
    }

    private Path file(String name, int size, long seed) throws Exception {
        byte[] data = new byte[size];
        new SplittableRandom(seed).nextBytes(data);
        Path p = outbox.resolve(name);
        Files.createDirectories(p.getParent());
        return Files.write(p, data);
    }

    @ParameterizedTest
    @MethodSource("io.ferry.cli.InstalledTransports#schemes")
    void movesADirectoryTreeAndSeveralFilesIntactOverOneConnection(String scheme) throws Exception {
        Path tree = outbox.resolve("tree");
        Path big = file("tree/big.bin", 3_000_000, 1);
        Path nested = file("tree/a/b/nested.bin", 70_000, 2);
        Path empty = Files.write(tree.resolve("a/empty"), new byte[0]);
        Path loose = file("loose.bin", 500_000, 3);
        SendPlan plan = SendPlan.of(List.of(tree, loose));
        LoopbackTransfer.Outcome outcome = LoopbackTransfer.run(ferry, scheme, ChannelOptions.empty(), plan, inbox,
                SendSettings.defaults().withChunkSize(64 * 1024), ProgressListener.NONE, 30);
        assertTrue(outcome.sent().ok(), outcome.sent().toString());
        assertEquals(4, outcome.received().size());
        assertSame(big, inbox.resolve("tree/big.bin"));
        assertSame(nested, inbox.resolve("tree/a/b/nested.bin"));
        assertSame(empty, inbox.resolve("tree/a/empty"));
        assertSame(loose, inbox.resolve("loose.bin"));
        for (FileOutcome f : outcome.sent().files()) {
            assertEquals(FileOutcome.Status.STORED, f.status(), f.toString());
            assertEquals(Checksum.CRC32C, f.checksum(), "the default checksum");
            assertArrayEquals(crc32c(outbox.resolve(f.name())), f.digest().orElseThrow(), f.name());
        }
        assertNoPartialFiles();
    }

    @Test
    void severalFilesAreInFlightAtOnceWithTheirChunksInterleaved() throws Exception {
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            files.add(file("f" + i + ".bin", 4_000_000, 10 + i));
        }
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<Integer> order = new ArrayList<>();
        ProgressListener watcher = new ProgressListener() {
            @Override
            public void fileStarted(int id, String name, long size, long resumedFrom) {
                most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            }

            @Override
            public synchronized void fileAdvanced(int id, long done) {
                if (order.isEmpty() || order.get(order.size() - 1) != id) {
                    order.add(id);
                }
            }

            @Override
            public void fileFinished(int id, boolean ok) {
                inFlight.decrementAndGet();
            }
        };
        SendPlan plan = SendPlan.of(files);
        LoopbackTransfer.run(ferry, "tcp", ChannelOptions.empty(), plan, inbox, SendSettings.defaults().withChunkSize(64 * 1024),
                watcher, 30);
        assertTrue(most.get() >= 2, "more than one file was in flight at once: " + most.get());
        assertTrue(order.size() > files.size(), "chunks of different files interleaved: " + order);
        for (Path f : files) {
            assertSame(f, inbox.resolve(f.getFileName().toString()));
        }
    }

    @ParameterizedTest
    @MethodSource("io.ferry.cli.InstalledTransports#schemes")
    void offersFilesAheadButStreamsNoMoreThanParallelFilesAtOnce(String scheme) throws Exception {
        int parallel = 2;
        int count = OfferSchedule.OFFER_AHEAD + 12;
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            files.add(file("many/f" + i + ".bin", 40_000 + i, 100 + i));
        }
        List<int[]> frames = framesTheReceiverSaw(scheme, outbox.resolve("many"), count,
                SendSettings.defaults().withParallelFiles(parallel).withChunkSize(16 * 1024));
        int offersBeforeFirstStart = 0;
        while (frames.get(offersBeforeFirstStart)[0] == TransferProtocol.OFFER) {
            offersBeforeFirstStart++;
        }
        assertTrue(offersBeforeFirstStart > parallel, "files are offered ahead of those streaming: " + offersBeforeFirstStart);
        assertEquals(parallel + OfferSchedule.OFFER_AHEAD, offersBeforeFirstStart,
                "files offered before the first one started: the streaming ones and the ones offered ahead");
        int streamingNow = 0;
        int most = 0;
        for (int[] frame : frames) {
            if (frame[0] == TransferProtocol.START) {
                most = Math.max(most, ++streamingNow);
            } else if (frame[0] == TransferProtocol.END) {
                streamingNow--;
            }
        }
        assertTrue(most >= 1 && most <= parallel, "files streaming at once (STARTed, not yet ENDed), as the receiver saw them: " + most);
        assertEquals(count, frames.stream().filter(f -> f[0] == TransferProtocol.OFFER).count(), "every file offered once");
        for (Path f : files) {
            assertSame(f, inbox.resolve("many").resolve(f.getFileName().toString()));
        }
    }

    @Test
    void largeFilesAreOfferedAheadOnlyUpToTheByteBudget() throws Exception {
        int count = 3;
        long size = 40L << 20; // two of them waiting would be more than OFFER_AHEAD_BYTES
        assertTrue(2 * size > OfferSchedule.OFFER_AHEAD_BYTES && size < OfferSchedule.OFFER_AHEAD_BYTES);
        Files.createDirectories(outbox.resolve("large"));
        for (int i = 0; i < count; i++) {
            try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(outbox.resolve("large/f" + i + ".bin").toFile(), "rw")) {
                f.setLength(size); // sparse: zeros, cheap to make and to read
                f.seek(size - 1);
                f.write(i + 1);
            }
        }
        List<int[]> frames = framesTheReceiverSaw("tcp", outbox.resolve("large"), count, SendSettings.defaults().withParallelFiles(1));
        // The receiver sees OFFER 0, START 0, then OFFER 1 (nothing waits once 0 streams), and OFFER 2 only after START 1.
        List<String> order = frames.stream().map(f -> (f[0] == TransferProtocol.OFFER ? "OFFER " : f[0] == TransferProtocol.START ? "START " : "END ") + f[1]).toList();
        assertTrue(order.indexOf("OFFER 1") > order.indexOf("START 0"), "one large file at a time waits to stream: " + order);
        assertTrue(order.indexOf("OFFER 2") > order.indexOf("START 1"), "one large file at a time waits to stream: " + order);
        assertEquals(count, order.stream().filter(o -> o.startsWith("OFFER")).count(), "every file offered once: " + order);
        for (int i = 0; i < count; i++) {
            assertSame(outbox.resolve("large/f" + i + ".bin"), inbox.resolve("large/f" + i + ".bin"));
        }
    }

    /** Sends {@code dir} and returns {frame type, file id} of every OFFER, START (or EAGER) and END, in the order the receiver read them. */
    private List<int[]> framesTheReceiverSaw(String scheme, Path dir, int count, SendSettings settings) throws Exception {
        List<int[]> seen = new ArrayList<>();
        CompletableFuture<Void> stored = new CompletableFuture<>();
        AtomicInteger storedCount = new AtomicInteger();
        ReceiverEvents events = new ReceiverEvents() {
            @Override
            public void stored(FileOutcome outcome) {
                if (storedCount.incrementAndGet() == count) {
                    stored.complete(null);
                }
            }

            @Override
            public void failed(String message) {
                stored.completeExceptionally(new AssertionError(message));
            }
        };
        Channel server = ferry.listen(scheme + "://127.0.0.1:0", new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                new FileReceiveSession(inbox, false, events, FileReceiveSession.DEFAULT_TAKEOVER).addTo(ch.pipeline());
                ch.pipeline().addAfter("ferry-frames", "spy", new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        if (msg instanceof FrameDecoder.Frame) {
                            FrameDecoder.Frame frame = (FrameDecoder.Frame) msg;
                            if (frame.type == TransferProtocol.OFFER || frame.type == TransferProtocol.START || frame.type == TransferProtocol.END
                                    || frame.type == TransferProtocol.EAGER) {
                                // (an EAGER start is a START here: both begin a file's content)
                                int type = frame.type == TransferProtocol.EAGER ? TransferProtocol.START : frame.type;
                                synchronized (seen) {
                                    seen.add(new int[]{type, frame.payload.getInt(frame.payload.readerIndex())});
                                }
                            }
                        }
                        ctx.fireChannelRead(msg);
                    }
                });
            }
        }).sync().channel();
        try {
            FileSendSession session = new FileSendSession(SendPlan.of(List.of(dir)), settings, ProgressListener.NONE);
            SessionResult result = run(scheme + "://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort(), session, 30);
            assertTrue(result.ok(), result.toString());
            stored.get(10, TimeUnit.SECONDS);
        } finally {
            server.close().sync();
        }
        synchronized (seen) {
            return new ArrayList<>(seen);
        }
    }

    @ParameterizedTest
    @MethodSource("io.ferry.cli.InstalledTransports#schemes")
    void resumesFromAVerifiedPartialFileAndSendsOnlyTheRest(String scheme) throws Exception {
        Path source = file("resume.bin", 2_000_000, 4);
        byte[] content = Files.readAllBytes(source);
        Files.write(inbox.resolve(".resume.bin.ferry-part"), Arrays.copyOf(content, 1_234_567));
        LoopbackTransfer.Outcome outcome = LoopbackTransfer.run(ferry, scheme, ChannelOptions.empty(),
                SendPlan.of(List.of(source)), inbox, SendSettings.defaults(), ProgressListener.NONE, 30);
        FileOutcome sent = outcome.sent().files().get(0);
        assertEquals(1_234_567, sent.resumedFrom());
        assertEquals(2_000_000 - 1_234_567, sent.transferred());
        assertArrayEquals(crc32c(source), sent.digest().orElseThrow(), "the final checksum covers the whole file");
        assertSame(source, inbox.resolve("resume.bin"));
        assertNoPartialFiles();
    }

    @Test
    void startsOverWhenThePartialFileDoesNotMatchTheSource() throws Exception {
        Path source = file("changed.bin", 1_000_000, 5);
        byte[] other = new byte[400_000];
        new SplittableRandom(99).nextBytes(other);
        Files.write(inbox.resolve(".changed.bin.ferry-part"), other);
        LoopbackTransfer.Outcome outcome = LoopbackTransfer.run(ferry, "tcp", ChannelOptions.empty(),
                SendPlan.of(List.of(source)), inbox, SendSettings.defaults(), ProgressListener.NONE, 30);
        assertEquals(0, outcome.sent().files().get(0).resumedFrom());
        assertEquals(1_000_000, outcome.sent().files().get(0).transferred());
        assertSame(source, inbox.resolve("changed.bin"));
    }

    @Test
    void aFileAlreadyThereWithTheSameContentIsNotSentAgain() throws Exception {
        Path source = file("same.bin", 300_000, 6);
        Files.copy(source, inbox.resolve("same.bin"));
        LoopbackTransfer.Outcome outcome = LoopbackTransfer.run(ferry, "tcp", ChannelOptions.empty(),
                SendPlan.of(List.of(source)), inbox, SendSettings.defaults(), ProgressListener.NONE, 30);
        FileOutcome sent = outcome.sent().files().get(0);
        assertEquals(FileOutcome.Status.ALREADY_PRESENT, sent.status());
        assertEquals(0, sent.transferred());
    }

    @Test
    void refusesAnExistingFileWithDifferentContentWithoutOverwrite() throws Exception {
        Path source = file("exists.bin", 1000, 7);
        Files.writeString(inbox.resolve("exists.bin"), "keep me");
        SessionResult result = sendTo(receiver(false), SendPlan.of(List.of(source)));
        assertFalse(result.ok());
        assertTrue(result.files().get(0).message().contains("already exists"), result.files().get(0).message());
        assertEquals("keep me", Files.readString(inbox.resolve("exists.bin")), "the existing file is untouched");
    }

    @Test
    void refusesPathTraversalAndWritesNothingOutside() throws Exception {
        Path source = file("evil.bin", 1000, 8);
        Receiver receiver = receiver(true);
        SessionResult result = sendTo(receiver, SendPlan.single(source, "../escaped.bin"));
        assertFalse(result.ok());
        assertTrue(result.files().get(0).message().contains("refused file name"), result.files().get(0).message());
        assertFalse(Files.exists(tmp.resolve("escaped.bin")), "nothing was written outside the receiving directory");
        assertTrue(receiver.failures.poll(5, TimeUnit.SECONDS).contains("path component '..'"));
    }

    @Test
    void aLinkInTheReceivingDirectoryLeadsNoFileOutsideWhileFilesBesideItAreStored() throws Exception {
        Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
        Files.createSymbolicLink(inbox.resolve("out"), elsewhere);
        Path first = file("d/first.bin", 1000, 9);
        Path second = file("d/second.bin", 1000, 10);
        file("out/evil.bin", 1000, 8);
        SessionResult result = sendTo(receiver(true), SendPlan.of(List.of(outbox.resolve("d"), outbox.resolve("out"))));
        assertFalse(result.ok());
        assertEquals(FileOutcome.Status.STORED, outcome(result, "d/first.bin").status(), "two files in one new directory");
        assertEquals(FileOutcome.Status.STORED, outcome(result, "d/second.bin").status());
        assertSame(first, inbox.resolve("d/first.bin"));
        assertSame(second, inbox.resolve("d/second.bin"));
        String why = outcome(result, "out/evil.bin").message();
        assertTrue(why.contains("resolves outside the receiving directory through a link"), why);
        try (Stream<Path> there = Files.list(elsewhere)) {
            assertEquals(0, there.count(), "nothing was written where the link leads");
        }
    }

    @Test
    void aLinkPlantedWhereThePartialFileGoesIsNotWrittenThrough() throws Exception {
        Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
        Files.createSymbolicLink(inbox.resolve(".planted.bin.ferry-part"), elsewhere.resolve("written-through-a-link"));
        Path source = file("planted.bin", 1000, 13);
        Path fine = file("fine.bin", 1000, 14);
        SessionResult result = sendTo(receiver(true), SendPlan.of(List.of(source, fine)));
        assertFalse(result.ok());
        String why = outcome(result, "planted.bin").message();
        assertTrue(why.contains("is not a regular file"), why);
        assertFalse(Files.exists(elsewhere.resolve("written-through-a-link"), LinkOption.NOFOLLOW_LINKS), "nothing was written through the link");
        assertFalse(Files.exists(inbox.resolve("planted.bin")));
        assertSame(fine, inbox.resolve("fine.bin"));
    }

    @Test
    void aFileInTheWayOfADirectoryRefusesThatFileOnly() throws Exception {
        Files.writeString(inbox.resolve("d"), "a file, not a directory");
        file("d/blocked.bin", 1000, 11);
        Path fine = file("e/fine.bin", 1000, 12);
        SessionResult result = sendTo(receiver(true), SendPlan.of(List.of(outbox.resolve("d"), outbox.resolve("e"))));
        assertFalse(result.ok());
        String why = outcome(result, "d/blocked.bin").message();
        assertTrue(why.contains("a file is in the way of directory"), why);
        assertEquals("a file, not a directory", Files.readString(inbox.resolve("d")));
        assertSame(fine, inbox.resolve("e/fine.bin"));
    }

    private static FileOutcome outcome(SessionResult result, String name) {
        return result.files().stream().filter(f -> f.name().equals(name)).findFirst().orElseThrow(() -> new AssertionError("no outcome for " + name));
    }

    @Test
    void aVanishedSourceFailsThatFileOnly() throws Exception {
        Path kept = file("kept.bin", 100_000, 9);
        Path vanishing = file("vanishing.bin", 100_000, 10);
        SendPlan plan = SendPlan.of(List.of(vanishing, kept));
        Files.delete(vanishing);
        SessionResult result = sendTo(receiver(true), plan);
        assertFalse(result.ok());
        assertTrue(result.files().get(0).message().contains("no such file"), result.files().get(0).message());
        assertEquals(FileOutcome.Status.STORED, result.files().get(1).status());
        assertFalse(Files.exists(inbox.resolve("vanishing.bin")));
        assertSame(kept, inbox.resolve("kept.bin"));
    }

    @Test
    void receiverRefusesAPeerSpeakingSomethingElse() throws Exception {
        Receiver receiver = receiver(true);
        String reply = rawExchange(receiver.port(), Unpooled.copiedBuffer("GET / HTTP/1.1\r\nHost: x\r\n\r\n", StandardCharsets.US_ASCII));
        assertTrue(reply.contains("does not speak the ferry protocol"), reply);
        assertTrue(receiver.failures.poll(5, TimeUnit.SECONDS).contains("does not speak the ferry protocol"));
    }

    @Test
    void aSenderThatEndsItsStreamAfterItsLastEndGetsTheVerdictsAndTheReceiverThenCloses() throws Exception {
        Receiver receiver = receiver(true);
        Path ended = file("ended.bin", 300_000, 31);
        byte[] content = Files.readAllBytes(ended);
        ByteBuf request = helloOfThisVersion();
        writeAndRelease(request, Frames.senderAuth(request.alloc(), Checksum.CRC32C, null));
        writeAndRelease(request, Frames.offer(request.alloc(), 0, content.length, "ended.bin", FileAttributes.NONE));
        writeAndRelease(request, Frames.offer(request.alloc(), 1, 100_000, "cut.bin", FileAttributes.NONE));
        writeAndRelease(request, Frames.start(request.alloc(), 0, 0));
        writeAndRelease(request, Frames.dataHeaderAlone(request.alloc(), 0, content.length));
        request.writeBytes(content);
        writeAndRelease(request, Frames.end(request.alloc(), 0, crc32c(ended)));
        writeAndRelease(request, Frames.start(request.alloc(), 1, 0));
        writeAndRelease(request, Frames.dataHeaderAlone(request.alloc(), 1, 40_000));
        request.writeBytes(new byte[40_000]);
        // The stream ends here: cut.bin has no END. The receiver must still verify ended.bin and answer, then close.
        String reply = rawExchange(receiver.port(), request, true);
        assertTrue(reply.contains("stored ended.bin"), "the verdict for the file the sender ended: " + reply);
        assertFalse(reply.contains("cut.bin"), "no verdict for a file without its END: " + reply);
        assertSame(ended, inbox.resolve("ended.bin"));
        assertFalse(Files.exists(inbox.resolve("cut.bin")));
        String kept = receiver.failures.poll(5, TimeUnit.SECONDS);
        assertTrue(kept != null && kept.contains(" of 100000 bytes of cut.bin; the data is kept"), "cut.bin stays partial: " + kept);
    }

    @Test
    void aVersionOneSenderIsToldToUpgradeInWordsItCanRead() throws Exception {
        Receiver receiver = receiver(true);
        byte[] name = "old.bin".getBytes(StandardCharsets.UTF_8);
        ByteBuf v1Offer = Unpooled.buffer().writeBytes(TransferProtocol.MAGIC).writeByte(1).writeShort(name.length).writeBytes(name).writeLong(3);
        String reply = rawExchange(receiver.port(), v1Offer);
        assertTrue(reply.startsWith("FERRY\u0001"), "a version-1 verdict with status 1 (failed): " + reply);
        assertTrue(reply.contains("this receiver speaks ferry protocol version 7; upgrade the sender"), reply);
        assertTrue(receiver.failures.poll(5, TimeUnit.SECONDS).contains("version 1"));
    }

    @Test
    void senderNamesAVersionOneReceiver() throws Exception {
        Receiver oldReceiver = fakeReceiver(Unpooled.buffer().writeBytes(TransferProtocol.MAGIC).writeByte(1).writeShort(5)
                .writeBytes("nope!".getBytes(StandardCharsets.US_ASCII)));
        SessionResult result = sendTo(oldReceiver, SendPlan.of(List.of(file("x.bin", 100, 11))));
        assertTrue(result.failure().orElseThrow().contains("speaks ferry protocol version 1; this sender speaks version 7"),
                result.failure().toString());
    }

    @Test
    void aVersionTwoSenderIsToldWhichVersionTheReceiverSpeaks() throws Exception {
        Receiver receiver = receiver(true);
        ByteBuf v2 = Unpooled.buffer().writeBytes(TransferProtocol.MAGIC).writeByte(2);
        writeAndRelease(v2, Frames.offer(v2.alloc(), 0, 3, "old.bin", FileAttributes.NONE));
        String reply = rawExchange(receiver.port(), v2);
        assertTrue(reply.startsWith("FERRY" + (char) TransferProtocol.VERSION), "the receiver's own hello: " + reply);
        assertTrue(reply.contains("this receiver speaks ferry protocol version 7"), reply);
        assertTrue(receiver.failures.poll(5, TimeUnit.SECONDS).contains("speaks ferry protocol version 2; this receiver speaks version 7"));
        assertNothingIn(inbox);
    }

    @Test
    void senderNamesAVersionTwoReceiver() throws Exception {
        ByteBuf reply = Unpooled.buffer().writeBytes(TransferProtocol.MAGIC).writeByte(2);
        ByteBuf error = Frames.error(Unpooled.buffer().alloc(), "this receiver speaks ferry protocol version 2");
        reply.writeBytes(error);
        error.release();
        SessionResult result = sendTo(fakeReceiver(reply), SendPlan.of(List.of(file("x.bin", 100, 13))));
        assertTrue(result.failure().orElseThrow().contains("speaks ferry protocol version 2; this sender speaks version 7"),
                result.failure().toString());
    }

    @Test
    void aSendersLinksThatCouldLeadOutOfTheReceivingDirectoryAreRefusedOneByOne() throws Exception {
        Receiver receiver = receiver(false);
        ByteBuf request = helloOfThisVersion();
        writeAndRelease(request, Frames.senderAuth(request.alloc(), Checksum.CRC32C, null));
        String[][] links = {
                {"t/up", "../../x"},   // lexically out
                {"t/dot", "./x"},      // '.' component
                {"t/r", ".."},         // inside (the receiving directory itself): taken
                {"t/r/e", ".."},       // its directory is reached through t/r: '..' there is the real parent's, outside
                {"t/abs", "/etc"},     // absolute
                {"t/mid", "d/../.."},  // '..' after a name
        };
        int id = 0;
        for (String[] l : links) {
            writeAndRelease(request, Frames.entry(request.alloc(), id++,
                    new SendPlan.TreeEntry(SendPlan.TreeEntry.Kind.LINK, l[0], l[1], FileAttributes.NONE)));
        }
        writeAndRelease(request, Frames.entry(request.alloc(), id,
                new SendPlan.TreeEntry(SendPlan.TreeEntry.Kind.DIRECTORY, "t/d", "", new FileAttributes(0750, 1_500_000_000_000L))));
        rawExchange(receiver.port(), request, true);
        assertTrue(Files.isSymbolicLink(inbox.resolve("t/r")), "the link inside is made");
        assertEquals(java.nio.file.Path.of(".."), Files.readSymbolicLink(inbox.resolve("t/r")));
        for (String refused : List.of("t/up", "t/dot", "t/abs", "t/mid")) {
            assertFalse(Files.exists(inbox.resolve(refused), java.nio.file.LinkOption.NOFOLLOW_LINKS), refused);
        }
        assertFalse(Files.exists(inbox.resolve("e"), java.nio.file.LinkOption.NOFOLLOW_LINKS), "nothing made through t/r");
        assertTrue(Files.isDirectory(inbox.resolve("t/d")));
        assertEquals(java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-x---"), Files.getPosixFilePermissions(inbox.resolve("t/d")));
        assertEquals(1_500_000_000_000L, Files.getLastModifiedTime(inbox.resolve("t/d")).toMillis(), "set when the session ended");
        List<String> failures = new ArrayList<>();
        for (String f; (f = receiver.failures.poll(5, TimeUnit.SECONDS)) != null && failures.size() < 5; ) {
            failures.add(f);
        }
        assertEquals(5, failures.size(), "one line per refused link: " + failures);
        assertTrue(failures.stream().anyMatch(f -> f.startsWith("t/r/e: refused link: its directory is reached through another link")), failures.toString());
        assertTrue(failures.stream().anyMatch(f -> f.startsWith("t/mid -> d/../..: refused link target ('..' after a name)")), failures.toString());
    }

    @Test
    void aReceiverWithATokenRefusesASenderWithoutOneBeforeReadingItsOffer() throws Exception {
        Receiver receiver = receiver(true, FileReceiveSession.DEFAULT_TAKEOVER, SECRET);
        ByteBuf request = helloOfThisVersion();
        writeAndRelease(request, Frames.senderAuth(request.alloc(), Checksum.CRC32C, null));
        writeAndRelease(request, Frames.offer(request.alloc(), 0, 10, "sneaked.bin", FileAttributes.NONE));
        String reply = rawExchange(receiver.port(), request);
        assertTrue(reply.contains("takes files only from senders holding its shared secret (--token-file)"), reply);
        assertTrue(receiver.failures.poll(5, TimeUnit.SECONDS).startsWith("refused the sender at 127.0.0.1:"));
        assertNothingIn(inbox);
    }

    @Test
    void aReceiverWithATokenRefusesAForgedProofAndNeverProvesItself() throws Exception {
        Receiver receiver = receiver(true, FileReceiveSession.DEFAULT_TAKEOVER, SECRET);
        ByteBuf request = helloOfThisVersion();
        writeAndRelease(request, Frames.senderAuth(request.alloc(), Checksum.CRC32C, SharedSecret.nonce()));
        writeAndRelease(request, Frames.proof(request.alloc(), TransferProtocol.SENDER_PROOF, new byte[SharedSecret.PROOF_BYTES]));
        writeAndRelease(request, Frames.offer(request.alloc(), 0, 10, "forged.bin", FileAttributes.NONE));
        String reply = rawExchange(receiver.port(), request);
        assertTrue(reply.contains("wrong token (--token-file)"), reply);
        assertFalse(reply.contains(new String(new byte[]{TransferProtocol.RECEIVER_PROOF, 0, 0, 0, SharedSecret.PROOF_BYTES},
                StandardCharsets.ISO_8859_1)), "no receiver proof for a sender that did not prove itself: " + reply);
        String logged = receiver.failures.poll(5, TimeUnit.SECONDS);
        assertTrue(logged.matches("refused the sender at 127\\.0\\.0\\.1:\\d+: wrong token \\(--token-file\\)"), logged);
        assertNothingIn(inbox);
    }

    @ParameterizedTest
    @MethodSource("io.ferry.cli.InstalledTransports#schemes")
    void theSameTokenOnBothSidesLetsTheFilesThroughOnEveryTransport(String scheme) throws Exception {
        Path source = file("secret-ok.bin", 700_000, 21);
        Channel server = ferry.listen(scheme + "://127.0.0.1:0", new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                new FileReceiveSession(inbox, false, new ReceiverEvents() {
                    @Override
                    public void stored(FileOutcome outcome) {
                    }

                    @Override
                    public void failed(String message) {
                    }
                }).requireToken(SECRET).addTo(ch.pipeline());
            }
        }).sync().channel();
        int port = ((java.net.InetSocketAddress) server.localAddress()).getPort();
        FileSendSession session = new FileSendSession(SendPlan.of(List.of(source)), SendSettings.defaults(), ProgressListener.NONE)
                .useToken(SharedSecret.of(SECRET_BYTES.clone()));
        SessionResult result = run(scheme + "://127.0.0.1:" + port, session, 30);
        assertTrue(result.ok(), result.toString());
        assertArrayEquals(Files.readAllBytes(source), Files.readAllBytes(inbox.resolve("secret-ok.bin")));
        server.close().sync();
    }

    @Test
    void aSenderWithATokenRefusesAReceiverThatCannotProveItHoldsIt() throws Exception {
        ByteBuf reply = helloOfThisVersion();
        writeAndRelease(reply, Frames.receiverAuth(reply.alloc(), SharedSecret.nonce()));
        writeAndRelease(reply, Frames.proof(reply.alloc(), TransferProtocol.RECEIVER_PROOF, new byte[SharedSecret.PROOF_BYTES]));
        FileSendSession session = new FileSendSession(SendPlan.of(List.of(file("x.bin", 100, 14))), SendSettings.defaults(),
                ProgressListener.NONE).useToken(SECRET);
        Receiver impostor = fakeReceiver(reply);
        SessionResult result = run("tcp://127.0.0.1:" + impostor.port(), session, 20);
        assertTrue(result.failure().orElseThrow().contains("does not hold this shared secret (--token-file): nothing sent"),
                result.failure().toString());
        assertEquals(0, result.files().get(0).transferred());
    }

    @Test
    void aSenderWithATokenSendsNothingToAReceiverWithoutOne() throws Exception {
        Receiver open = receiver(true);
        FileSendSession session = new FileSendSession(SendPlan.of(List.of(file("x.bin", 100, 15))), SendSettings.defaults(),
                ProgressListener.NONE).useToken(SECRET);
        SessionResult result = run("tcp://127.0.0.1:" + open.port(), session, 20);
        assertTrue(result.failure().orElseThrow().contains("has no shared secret (it runs without --token-file): nothing sent"),
                result.failure().toString());
        assertNothingIn(inbox);
    }

    @Test
    void senderRefusesAPeerSpeakingSomethingElse() throws Exception {
        Receiver notFerry = fakeReceiver(Unpooled.copiedBuffer("HTTP/1.1 400 Bad Request\r\n\r\n", StandardCharsets.US_ASCII));
        SessionResult result = sendTo(notFerry, SendPlan.of(List.of(file("x.bin", 100, 12))));
        assertTrue(result.failure().orElseThrow().contains("does not speak the ferry protocol (it sent 'HTTP/1.1 400 Bad'"),
                result.failure().toString());
    }

    @Test
    void aConnectionLostMidFileLeavesNoFinalFileButKeepsTheDataForResume() throws Exception {
        Receiver receiver = receiver(true);
        Channel client = stalledSender(receiver, "partial.bin", 1_000_000, 300_000);
        client.close().sync();
        String failure = receiver.failures.poll(10, TimeUnit.SECONDS);
        assertTrue(failure.contains("ended after 300000 of 1000000 bytes of partial.bin"), failure);
        assertFalse(Files.exists(inbox.resolve("partial.bin")), "no file under its final name");
        assertEquals(300_000, Files.size(inbox.resolve(".partial.bin.ferry-part")), "the received data is kept for a resume");
    }

    /** Connects, offers {@code name} and sends its first {@code sent} bytes (zeros), then goes silent. */
    private Channel stalledSender(Receiver receiver, String name, int size, int sent) throws Exception {
        Channel client = ferry.connect("tcp://127.0.0.1:" + receiver.port(), new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ReferenceCountUtil.release(msg);
            }
        }).sync().channel();
        ByteBufAllocator alloc = client.alloc();
        client.write(Frames.hello(alloc));
        client.write(Frames.senderAuth(alloc, Checksum.CRC32C, null));
        client.write(Frames.offer(alloc, 0, size, name, FileAttributes.NONE));
        client.write(Frames.start(alloc, 0, 0));
        ByteBuf data = Frames.dataHeader(alloc, 0, sent);
        data.writeZero(sent);
        client.writeAndFlush(data).sync();
        awaitFile(inbox.resolve("." + name + ".ferry-part"), sent);
        return client;
    }

    @Test
    void aSilentSendersFileIsTakenOverByANewSender() throws Exception {
        Receiver receiver = receiver(true, Duration.ofMillis(500));
        Channel stalled = stalledSender(receiver, "taken.bin", 1_000_000, 300_000);
        Thread.sleep(600);
        Path source = file("taken.bin", 1_000_000, 21);
        SessionResult result = sendTo(receiver, SendPlan.of(List.of(source)));
        assertTrue(result.ok(), result.toString());
        assertSame(source, inbox.resolve("taken.bin"));
        assertTrue(stalled.closeFuture().await(10, TimeUnit.SECONDS), "the silent sender's connection is ended");
        String failure = receiver.failures.poll(10, TimeUnit.SECONDS);
        assertTrue(failure != null && failure.contains("sent nothing for") && failure.contains("offered taken.bin"), failure);
        assertNoPartialFiles();
    }

    @Test
    void aSenderSilentForLessThanTheTakeoverTimeKeepsItsFile() throws Exception {
        Receiver receiver = receiver(true, Duration.ofSeconds(60));
        Channel stalled = stalledSender(receiver, "kept.bin", 1_000_000, 300_000);
        SessionResult result = sendTo(receiver, SendPlan.of(List.of(file("kept.bin", 1_000_000, 22))));
        assertFalse(result.ok());
        String message = result.files().get(0).message();
        assertTrue(message.contains("kept.bin is being received from another sender right now (it last sent data")
                && message.contains("a sender silent for 60.0 s gives way"), message);
        assertTrue(stalled.isActive(), "the first sender keeps its session");
        assertFalse(Files.exists(inbox.resolve("kept.bin")));
        stalled.close().sync();
    }

    @ParameterizedTest
    @MethodSource("io.ferry.cli.InstalledTransports#schemes")
    void withSha256BothEndsComputeTheFilesSha256IncludingAResumedPrefix(String scheme) throws Exception {
        Path source = file("sha.bin", 2_500_000, 31);
        Files.write(inbox.resolve(".sha.bin.ferry-part"), Arrays.copyOf(Files.readAllBytes(source), 1_000_000));
        LoopbackTransfer.Outcome outcome = LoopbackTransfer.run(ferry, scheme, ChannelOptions.empty(), SendPlan.of(List.of(source)),
                inbox, SendSettings.defaults().withChecksum(Checksum.SHA256), ProgressListener.NONE, 30);
        FileOutcome sent = outcome.sent().files().get(0);
        assertTrue(sent.ok(), sent.toString());
        assertEquals(1_000_000, sent.resumedFrom(), "the held prefix was compared by its SHA-256");
        assertEquals(Checksum.SHA256, sent.checksum());
        assertArrayEquals(sha256(source), sent.digest().orElseThrow(), "the value sha256sum prints");
        assertArrayEquals(sha256(source), outcome.received().get(0).digest().orElseThrow());
        assertEquals(Checksum.SHA256, outcome.received().get(0).checksum());
        assertSame(source, inbox.resolve("sha.bin"));
    }

    @Test
    void aReceiverRequiringSha256RefusesACrc32cSenderBeforeItsOffer() throws Exception {
        Receiver receiver = receiver(true, FileReceiveSession.DEFAULT_TAKEOVER, null, Checksum.SHA256);
        SessionResult result = sendTo(receiver, SendPlan.of(List.of(file("weak.bin", 1000, 32))));
        assertFalse(result.ok());
        assertTrue(result.failure().orElseThrow().contains("takes files only with sha256 (--checksum sha256; send with --checksum sha256)"),
                result.failure().toString());
        String logged = receiver.failures.poll(5, TimeUnit.SECONDS);
        assertTrue(logged != null && logged.startsWith("refused the sender at 127.0.0.1:") && logged.contains("checks content with crc32c"),
                String.valueOf(logged));
        assertNothingIn(inbox);
    }

    @Test
    void anUnknownChecksumInAuthEndsTheSessionWithAProtocolError() throws Exception {
        Receiver receiver = receiver(true);
        ByteBuf request = helloOfThisVersion();
        request.writeByte(TransferProtocol.SENDER_AUTH).writeInt(2).writeByte(TransferProtocol.MODE_OPEN).writeByte(99);
        writeAndRelease(request, Frames.offer(request.alloc(), 0, 10, "odd.bin", FileAttributes.NONE));
        String reply = rawExchange(receiver.port(), request);
        assertTrue(reply.contains("protocol error: unknown checksum 99 in its AUTH frame"), reply);
        assertNothingIn(inbox);
    }

    @ParameterizedTest
    @EnumSource(Checksum.class)
    void corruptedContentIsDetectedAndDiscarded(Checksum checksum) throws Exception {
        Receiver receiver = receiver(true);
        LinkedBlockingQueue<String> replies = new LinkedBlockingQueue<>();
        Channel client = ferry.connect("tcp://127.0.0.1:" + receiver.port(), new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                replies.add(((ByteBuf) msg).toString(StandardCharsets.ISO_8859_1));
                ReferenceCountUtil.release(msg);
            }
        }).sync().channel();
        ByteBufAllocator alloc = client.alloc();
        client.write(Frames.hello(alloc));
        client.write(Frames.senderAuth(alloc, checksum, null));
        client.write(Frames.offer(alloc, 0, 4, "bad.bin", FileAttributes.NONE));
        client.write(Frames.start(alloc, 0, 0));
        client.write(Frames.dataHeader(alloc, 0, 4).writeBytes(new byte[]{1, 2, 3, 4}));
        client.writeAndFlush(Frames.end(alloc, 0, new byte[checksum.length()])); // zeros: not the checksum of 1 2 3 4
        StringBuilder all = new StringBuilder();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!all.toString().contains("does not match") && System.nanoTime() < deadline) {
            String r = replies.poll(100, TimeUnit.MILLISECONDS);
            if (r != null) {
                all.append(r);
            }
        }
        assertTrue(all.toString().contains("does not match"), all.toString());
        client.close().sync();
        assertFalse(Files.exists(inbox.resolve("bad.bin")));
        assertNoPartialFiles();
    }

    // ------------------------------------------------------------------ helpers

    private static void assertSame(Path expected, Path actual) throws Exception {
        assertTrue(Files.exists(actual), actual + " exists");
        assertArrayEquals(Files.readAllBytes(expected), Files.readAllBytes(actual), actual.toString());
    }

    private static byte[] sha256(Path file) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
    }

    private static byte[] crc32c(Path file) throws Exception {
        CRC32C crc = new CRC32C();
        crc.update(Files.readAllBytes(file));
        return ByteBuffer.allocate(4).putInt((int) crc.getValue()).array();
    }

    /** Waits until {@code file} holds at least {@code size} bytes; fails, saying what it saw, after 10 s. */
    private static void awaitFile(Path file, long size) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long seen = -1;
        while (System.nanoTime() < deadline) {
            try {
                seen = Files.size(file);
                if (seen >= size) {
                    return;
                }
            } catch (java.io.IOException notYet) {
                // not created yet
            }
            Thread.sleep(10);
        }
        throw new AssertionError(file + " did not reach " + size + " bytes within 10 s: "
                + (seen < 0 ? "it was never created" : "it held " + seen));
    }

    private void assertNoPartialFiles() throws Exception {
        try (Stream<Path> files = Files.walk(inbox)) {
            List<Path> partial = files.filter(p -> p.getFileName().toString().endsWith(".ferry-part")).toList();
            assertTrue(partial.isEmpty(), "temporary files left behind: " + partial);
        }
    }

    private record Receiver(Channel server, LinkedBlockingQueue<String> failures) {
        int port() {
            return ((InetSocketAddress) server.localAddress()).getPort();
        }
    }

    private static final byte[] SECRET_BYTES = "correct horse battery staple".getBytes(StandardCharsets.US_ASCII);
    private static final SharedSecret SECRET = SharedSecret.of(SECRET_BYTES);

    private static ByteBuf helloOfThisVersion() {
        return Unpooled.buffer().writeBytes(TransferProtocol.MAGIC).writeByte(TransferProtocol.VERSION);
    }

    private static void writeAndRelease(ByteBuf to, ByteBuf frame) {
        to.writeBytes(frame);
        frame.release();
    }

    /** Lists every entry of {@code dir}, hidden ones (a {@code .NAME.ferry-part}) included: there must be none. */
    private static void assertNothingIn(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (java.util.stream.Stream<Path> all = Files.walk(dir)) {
                assertEquals(List.of(dir), all.toList(), "nothing written");
            }
        }
    }

    private Receiver receiver(boolean overwrite, Duration takeover, SharedSecret token) throws InterruptedException {
        return receiver(overwrite, takeover, token, null);
    }

    private Receiver receiver(boolean overwrite) throws InterruptedException {
        return receiver(overwrite, FileReceiveSession.DEFAULT_TAKEOVER);
    }

    private Receiver receiver(boolean overwrite, Duration takeover) throws InterruptedException {
        return receiver(overwrite, takeover, null, null);
    }

    /** A receiver into {@code inbox}, with a token and a required checksum where not {@code null}. */
    private Receiver receiver(boolean overwrite, Duration takeover, SharedSecret token, Checksum required) throws InterruptedException {
        LinkedBlockingQueue<String> failures = new LinkedBlockingQueue<>();
        ReceiverEvents events = new ReceiverEvents() {
            @Override
            public void stored(FileOutcome outcome) {
            }

            @Override
            public void failed(String message) {
                failures.add(message);
            }
        };
        Channel server = ferry.listen("tcp://127.0.0.1:0", new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                FileReceiveSession session = new FileReceiveSession(inbox, overwrite, events, takeover);
                if (token != null) {
                    session.requireToken(token);
                }
                if (required != null) {
                    session.requireChecksum(required);
                }
                session.addTo(ch.pipeline());
            }
        }).sync().channel();
        return new Receiver(server, failures);
    }

    /** A server that answers the first bytes it gets with {@code reply}. */
    private Receiver fakeReceiver(ByteBuf reply) throws InterruptedException {
        Channel server = ferry.listen("tcp://127.0.0.1:0", new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new AnswerOnce(ctx -> ctx.writeAndFlush(reply.retainedDuplicate())));
            }
        }).sync().channel();
        server.closeFuture().addListener(f -> reply.release());
        return new Receiver(server, new LinkedBlockingQueue<>());
    }

    private SessionResult sendTo(Receiver receiver, SendPlan plan) throws Exception {
        FileSendSession session = new FileSendSession(plan, SendSettings.defaults(), ProgressListener.NONE);
        return run("tcp://127.0.0.1:" + receiver.port(), session, 20);
    }

    /** Connects {@code session} to {@code uri} and waits up to {@code seconds} for its result. */
    private SessionResult run(String uri, FileSendSession session, int seconds) throws Exception {
        ferry.connect(uri, new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                session.addTo(ch.pipeline());
            }
        }).sync();
        return session.result().get(seconds, TimeUnit.SECONDS);
    }

    /** Sends raw bytes and collects everything the peer says until it closes. */
    private String rawExchange(int port, ByteBuf request) throws Exception {
        return rawExchange(port, request, false);
    }

    /** Sends raw bytes, then ends the stream if {@code endStream}, and collects what the peer says until it closes. */
    private String rawExchange(int port, ByteBuf request, boolean endStream) throws Exception {
        ByteArrayOutputStream reply = new ByteArrayOutputStream();
        CompletableFuture<Void> closed = new CompletableFuture<>();
        ChannelFuture connected = ferry.connect("tcp://127.0.0.1:" + port, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf b = (ByteBuf) msg;
                byte[] bytes = new byte[b.readableBytes()];
                b.readBytes(bytes);
                synchronized (reply) {
                    reply.writeBytes(bytes);
                }
                ReferenceCountUtil.release(msg);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                closed.complete(null);
            }
        });
        Channel client = connected.sync().channel();
        ChannelFuture written = client.writeAndFlush(request);
        if (endStream) {
            written.sync();
            FerryChannels.shutdownOutput(client).sync();
        }
        closed.get(10, TimeUnit.SECONDS);
        synchronized (reply) {
            return reply.toString(StandardCharsets.ISO_8859_1);
        }
    }
}
