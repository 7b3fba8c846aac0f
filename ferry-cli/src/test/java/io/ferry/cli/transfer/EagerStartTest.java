package io.ferry.cli.transfer;

import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPromise;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The eager start of protocol version 6 over real transports on loopback: the first files' content leaves
 * before their ACCEPT, and a file the receiver already holds (partial or whole) still resumes or is found
 * present. The receiver here holds back each ACCEPT until content of that file arrived, so the eager content
 * is certainly on its way before the sender learns what the receiver holds.
 */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EagerStartTest {

    /** How long the receiver holds back an ACCEPT for content that never comes (a sender that waits for it). */
    private static final long HOLD_MILLIS = 10_000;

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

    @ParameterizedTest
    @MethodSource("withoutTls")
    void contentLeavesBeforeTheReceiversAcceptArrives(String scheme) throws Exception {
        Path source = file("first.bin", 700_000, 1);
        Sent sent = send(scheme, source, false);
        assertTrue(sent.result.ok(), sent.result.toString());
        assertFalse(sent.holder.timedOut, "the receiver held its ACCEPT back and content came anyway");
        assertEquals(List.of(TransferProtocol.EAGER), sent.holder.starts, "the first file began with EAGER, and only once");
        assertArrayEquals(Files.readAllBytes(source), Files.readAllBytes(inbox.resolve("first.bin")));
        assertEquals(700_000, sent.result.files().get(0).transferred());
    }

    @ParameterizedTest
    @MethodSource("withoutTls")
    void noMoreThanTheEagerBudgetMovesAheadOfTheAccept(String scheme) throws Exception {
        Path source = outbox.resolve("large.bin");
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(source.toFile(), "rw")) {
            f.setLength(24L << 20); // sparse: zeros, cheap to make and to read
            f.seek((24L << 20) - 1);
            f.write(7);
        }
        AcceptHolder holder = new AcceptHolder(1000, false); // a receiver slow to answer, e.g. hashing what it holds
        SessionResult result = send(scheme, source, false, holder);
        assertTrue(result.ok(), result.toString());
        long ahead = holder.contentBeforeRelease;
        int chunk = SendSettings.defaults().chunkSize();
        assertTrue(ahead > 0 && ahead <= ChunkWriter.EAGER_BYTES + chunk,
                "content read before the ACCEPT was let through: " + ahead + " bytes (budget " + ChunkWriter.EAGER_BYTES + " + a chunk of " + chunk + ")");
        assertEquals(-1, Files.mismatch(source, inbox.resolve("large.bin")));
    }

    @ParameterizedTest
    @MethodSource("withoutTls")
    void aPartialFileStillResumesAndTheEagerContentIsNotCounted(String scheme) throws Exception {
        Path source = file("part.bin", 2_000_000, 2);
        byte[] content = Files.readAllBytes(source);
        Files.write(inbox.resolve(".part.bin.ferry-part"), Arrays.copyOf(content, 1_234_567));
        Sent sent = send(scheme, source, false);
        assertTrue(sent.result.ok(), sent.result.toString());
        assertFalse(sent.holder.timedOut, "content of the file came before its ACCEPT");
        assertEquals(List.of(TransferProtocol.EAGER, TransferProtocol.START), sent.holder.starts,
                "started eagerly, then again from what the receiver holds");
        FileOutcome outcome = sent.result.files().get(0);
        assertEquals(1_234_567, outcome.resumedFrom());
        assertEquals(2_000_000 - 1_234_567, outcome.transferred(), "what the receiver dropped is not counted as sent");
        assertArrayEquals(content, Files.readAllBytes(inbox.resolve("part.bin")));
        assertFalse(Files.exists(inbox.resolve(".part.bin.ferry-part")));
    }

    @ParameterizedTest
    @MethodSource("withoutTls")
    void aFileAlreadyThereIsFoundPresentAndNotRefusedWithoutOverwrite(String scheme) throws Exception {
        Path source = file("same.bin", 500_000, 3);
        Files.copy(source, inbox.resolve("same.bin"));
        Sent sent = send(scheme, source, false);
        assertTrue(sent.result.ok(), sent.result.toString());
        FileOutcome outcome = sent.result.files().get(0);
        assertEquals(FileOutcome.Status.ALREADY_PRESENT, outcome.status());
        assertEquals(0, outcome.transferred());
        assertArrayEquals(Files.readAllBytes(source), Files.readAllBytes(inbox.resolve("same.bin")));
    }

    @ParameterizedTest
    @MethodSource("withoutTls")
    void aDifferentFileThereIsReplacedWithOverwrite(String scheme) throws Exception {
        Path source = file("other.bin", 300_000, 4);
        byte[] old = new byte[300_000];
        new SplittableRandom(5).nextBytes(old);
        Files.write(inbox.resolve("other.bin"), old);
        Sent sent = send(scheme, source, true);
        assertTrue(sent.result.ok(), sent.result.toString());
        assertEquals(FileOutcome.Status.STORED, sent.result.files().get(0).status());
        assertArrayEquals(Files.readAllBytes(source), Files.readAllBytes(inbox.resolve("other.bin")));
    }

    /** The transports without TLS of their own: QUIC is TLS, under which a sender does not start eagerly. */
    static java.util.stream.Stream<String> withoutTls() {
        return io.ferry.cli.InstalledTransports.schemes().filter(scheme -> !scheme.equals("quic"));
    }

    @org.junit.jupiter.api.Test
    void overQuicTheFirstFileWaitsForItsAccept() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.ferry.cli.InstalledTransports.names().contains("quic"), "quic installed");
        Path source = file("quic.bin", 300_000, 7);
        AcceptHolder holder = new AcceptHolder(1000, true);
        SessionResult result = send("quic", source, false, holder);
        assertTrue(result.ok(), result.toString());
        assertTrue(holder.timedOut, "no content came while the ACCEPT was held back: a TLS receiver refuses a certificate late");
        assertEquals(List.of(TransferProtocol.START), holder.starts);
        assertArrayEquals(Files.readAllBytes(source), Files.readAllBytes(inbox.resolve("quic.bin")));
    }

    @org.junit.jupiter.api.Test
    void aReceiverOfAnotherVersionThatClosesAtOnceIsStillNamedAsSuch() throws Exception {
        Path source = file("early.bin", 6_000_000, 6);
        Channel client = null;
        // what a version-5 receiver does with this sender's hello: its own hello and an ERROR, then close
        Channel server = ferry.listen("tcp://127.0.0.1:0", new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new AnswerOnce(ctx -> {
                    ctx.write(ctx.alloc().buffer().writeBytes(TransferProtocol.MAGIC).writeByte(5));
                    ctx.writeAndFlush(Frames.error(ctx.alloc(), "this receiver speaks ferry protocol version 5"))
                            .addListener(io.netty.channel.ChannelFutureListener.CLOSE);
                }));
            }
        }).sync().channel();
        try {
            List<Path> sources = new java.util.ArrayList<>(List.of(source));
            for (int i = 0; i < 100; i++) { // more than are offered before an answer: most never are
                sources.add(file("small" + i + ".bin", 100, i));
            }
            FileSendSession session = new FileSendSession(SendPlan.of(sources), SendSettings.defaults(), ProgressListener.NONE);
            client = ferry.connect("tcp://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort(), new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    session.addTo(ch.pipeline());
                }
            }).sync().channel();
            SessionResult result = session.result().get(30, TimeUnit.SECONDS);
            String failure = result.failure().orElseThrow();
            assertEquals(101, result.files().size());
            for (FileOutcome f : result.files()) { // a file never offered took no time, rather than the time since boot
                assertTrue(f.elapsed().compareTo(result.elapsed()) <= 0, f + " within the session's " + result.elapsed());
            }
            // either its answer was read, or the reset came first: the user is told about versions either way
            assertTrue(failure.contains("speaks ferry protocol version 5; this sender speaks version " + TransferProtocol.VERSION)
                    || failure.contains("a ferry receiver of another protocol version does that"), failure);
        } finally {
            if (client != null) {
                // the receiver hung up with the sender's bytes in flight: what its graceful close then reports
                // (data lost, or nothing if the reset came first) is a race this test is not about
                io.ferry.transport.FerryChannels.abort(client).await(10, TimeUnit.SECONDS);
            }
            server.close().sync();
        }
    }

    // ------------------------------------------------------------------ helpers

    private record Sent(SessionResult result, AcceptHolder holder) {
    }

    private Path file(String name, int size, long seed) throws Exception {
        byte[] data = new byte[size];
        new SplittableRandom(seed).nextBytes(data);
        return Files.write(outbox.resolve(name), data);
    }

    /** Sends {@code source} to a receiver into {@code inbox} whose ACCEPTs wait for content of their file. */
    private Sent send(String scheme, Path source, boolean overwrite) throws Exception {
        AcceptHolder holder = new AcceptHolder(HOLD_MILLIS, true);
        return new Sent(send(scheme, source, overwrite, holder), holder);
    }

    private SessionResult send(String scheme, Path source, boolean overwrite, AcceptHolder holder) throws Exception {
        ReceiverEvents events = new ReceiverEvents() {
            @Override
            public void stored(FileOutcome outcome) {
            }

            @Override
            public void failed(String message) {
            }
        };
        Channel server = ferry.listen(scheme + "://127.0.0.1:0", new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast("hold-accepts", holder);
                new FileReceiveSession(inbox, overwrite, events, FileReceiveSession.DEFAULT_TAKEOVER).addTo(ch.pipeline());
                ch.pipeline().addAfter("ferry-frames", "content-seen", holder.contentSeen());
            }
        }).sync().channel();
        try {
            FileSendSession session = new FileSendSession(SendPlan.of(List.of(source)), SendSettings.defaults(), ProgressListener.NONE);
            ferry.connect(scheme + "://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort(), new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    session.addTo(ch.pipeline());
                }
            }).sync();
            return session.result().get(30, TimeUnit.SECONDS);
        } finally {
            server.close().sync();
        }
    }

    /**
     * Holds the receiver's ACCEPT frames back for {@code holdMillis} or, with {@code releaseOnData}, until a DATA
     * frame has been read (a release by the clock is then noted in {@link #timedOut}); notes the frames that began
     * content (EAGER, START) and how much content was read before the release. One connection.
     */
    private static final class AcceptHolder extends ChannelDuplexHandler {
        private final long holdMillis;
        private final boolean releaseOnData;
        private final List<Object[]> held = new ArrayList<>();
        private boolean dataSeen;
        volatile boolean timedOut;
        volatile long contentBeforeRelease;
        final List<Integer> starts = new java.util.concurrent.CopyOnWriteArrayList<>();

        AcceptHolder(long holdMillis, boolean releaseOnData) {
            this.holdMillis = holdMillis;
            this.releaseOnData = releaseOnData;
        }

        @Override
        public boolean isSharable() {
            return true;
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (!dataSeen && msg instanceof ByteBuf b && b.readableBytes() > 0 && b.getUnsignedByte(b.readerIndex()) == TransferProtocol.ACCEPT) {
                if (held.isEmpty()) {
                    ctx.executor().schedule(() -> {
                        if (!dataSeen) {
                            timedOut = true;
                            release(ctx);
                        }
                    }, holdMillis, TimeUnit.MILLISECONDS);
                }
                held.add(new Object[]{msg, promise});
                return;
            }
            ctx.write(msg, promise);
        }

        private void release(ChannelHandlerContext ctx) {
            dataSeen = true;
            for (Object[] w : held) {
                ctx.write(w[0], (ChannelPromise) w[1]);
            }
            held.clear();
            ctx.flush();
        }

        /** Sees the decoded frames: the first DATA releases the held ACCEPTs. */
        ChannelInboundHandlerAdapter contentSeen() {
            AcceptHolder holder = this;
            return new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    if (msg instanceof FrameDecoder.Frame frame) {
                        if (frame.type == TransferProtocol.EAGER || frame.type == TransferProtocol.START) {
                            starts.add(frame.type);
                        } else if (frame.type == TransferProtocol.DATA && !holder.dataSeen) {
                            contentBeforeRelease += frame.payload.readableBytes() - 4; // (after the file id)
                            if (releaseOnData) {
                                holder.release(ctx.pipeline().context(holder));
                            }
                        }
                    }
                    ctx.fireChannelRead(msg);
                }
            };
        }
    }
}
