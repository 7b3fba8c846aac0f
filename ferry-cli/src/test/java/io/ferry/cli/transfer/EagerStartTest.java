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
    @MethodSource("io.ferry.cli.InstalledTransports#schemes")
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
    @MethodSource("io.ferry.cli.InstalledTransports#schemes")
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
    @MethodSource("io.ferry.cli.InstalledTransports#schemes")
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
    @MethodSource("io.ferry.cli.InstalledTransports#schemes")
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
        AcceptHolder holder = new AcceptHolder();
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
            return new Sent(session.result().get(30, TimeUnit.SECONDS), holder);
        } finally {
            server.close().sync();
        }
    }

    /**
     * Holds the receiver's ACCEPT frames back until a DATA frame has been read (or {@link #HOLD_MILLIS} passed,
     * noted in {@link #timedOut}), and notes the frames that began content (EAGER, START). One connection.
     */
    private static final class AcceptHolder extends ChannelDuplexHandler {
        private final List<Object[]> held = new ArrayList<>();
        private boolean dataSeen;
        volatile boolean timedOut;
        final List<Integer> starts = new java.util.concurrent.CopyOnWriteArrayList<>();

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
                    }, HOLD_MILLIS, TimeUnit.MILLISECONDS);
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
                            holder.release(ctx.pipeline().context(holder));
                        }
                    }
                    ctx.fireChannelRead(msg);
                }
            };
        }
    }
}
