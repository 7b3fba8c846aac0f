package io.ferry.transport.striped;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.DataLossException;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ConnectTimeoutException;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.DataOutputStream;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a striped channel does with peers that are not striped, with malformed blocks and with a member that fails. */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StripedChannelTest {

    private static final ChannelOptions FOUR = ChannelOptions.builder().set(FerryChannelOption.STREAMS, 4).build();

    private Transports ferry;

    @BeforeEach
    void open() {
        ferry = Transports.create();
    }

    /**
     * A member whose peer reset it after every byte was acknowledged, but before its FIN was (a refused or
     * timed-out striped connect closes its members at once), is reported as a loss of zero bytes; any byte is a failure.
     */
    @AfterEach
    void close() {
        try {
            ferry.close();
        } catch (DataLossException e) {
            for (UndeliveredDataException loss : e.losses()) {
                assertEquals(0, loss.unacknowledgedBytes(), "no byte lost in the close: " + e.getMessage());
            }
        }
    }

    private Channel listen(ChannelOptions options, Consumer<Channel> child) throws InterruptedException {
        return ferry.listen("tcp://127.0.0.1:0", new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                child.accept(ch);
            }
        }, options).sync().channel();
    }

    private ChannelFuture connect(int port, ChannelOptions options) {
        return ferry.connect("tcp://127.0.0.1:" + port, new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
            }
        }, options);
    }

    private static int port(Channel server) {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /**
     * A striped connect refused before its members were all there hands back a channel that can be closed and
     * waited on, as a failed Netty connect's channel can (it had never been registered, and its close() threw:
     * {@code ferry perf} over 25 % loss ended in "channel not registered to an event loop").
     */
    @Test
    void aFailedConnectsChannelClosesAndSaysItClosed() throws Exception {
        int free;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            free = s.getLocalPort();
        }
        ChannelFuture f = connect(free, FOUR);
        assertTrue(f.await(10, TimeUnit.SECONDS));
        assertInstanceOf(ConnectException.class, f.cause());
        ChannelFuture closed = f.channel().close();
        assertTrue(closed.await(5, TimeUnit.SECONDS) && closed.isSuccess(), "closing the failed connect's channel succeeds");
        assertTrue(f.channel().closeFuture().await(5, TimeUnit.SECONDS), "its closeFuture completes");
        assertFalse(f.channel().isOpen());
    }

    @Test
    void aPlainClientOfAStripedListenerIsToldWhatIsWrongInOneLine() throws Exception {
        Channel server = listen(FOUR, ch -> { });
        try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), port(server))) {
            plain.getOutputStream().write("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String answer = new String(plain.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertTrue(answer.startsWith("FERRY-STRIPED/1\n"), "the listener greets first: " + answer);
            assertTrue(answer.contains("ERROR this listener carries striped sessions: connect with the STREAMS option"), answer);
        } finally {
            server.close().sync();
        }
    }

    @Test
    void aStripedClientOfASilentPlainListenerFailsNamingTheCause() throws Exception {
        Channel server = listen(ChannelOptions.empty(), ch -> { });
        try {
            ChannelFuture f = connect(port(server), FOUR.toBuilder().set(FerryChannelOption.CONNECT_TIMEOUT, Duration.ofSeconds(1)).build());
            assertTrue(f.await(10, TimeUnit.SECONDS));
            ConnectTimeoutException e = assertInstanceOf(ConnectTimeoutException.class, f.cause());
            assertTrue(e.getMessage().contains("does not carry striped sessions (give it the STREAMS option too)"), e.getMessage());
            assertFalse(f.channel().isOpen());
        } finally {
            server.close().sync();
        }
    }

    @Test
    void aStripedClientOfAPlainListenerThatSpeaksFirstFailsQuotingIt() throws Exception {
        try (ServerSocket plain = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int[] counts = new int[2]; // connections accepted, connections that ended
            Thread acceptor = new Thread(() -> {
                for (int i = 0; i < 4; i++) {
                    Socket s;
                    try {
                        s = plain.accept();
                    } catch (Exception closed) {
                        return;
                    }
                    synchronized (counts) {
                        counts[0]++;
                    }
                    Thread greeter = new Thread(() -> { // each connection at once, as a real server does
                        try (s) {
                            s.getOutputStream().write("SSH-2.0-OpenSSH_9.2\r\n".getBytes(StandardCharsets.US_ASCII));
                            while (s.getInputStream().read() >= 0) {
                                // until the member ends
                            }
                        } catch (Exception reset) {
                            // counted as ended all the same
                        } finally {
                            synchronized (counts) {
                                counts[1]++;
                                counts.notifyAll();
                            }
                        }
                    });
                    greeter.setDaemon(true);
                    greeter.start();
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            // LINGER 0: the members of the failed session are reset, not closed gracefully (a graceful close
            // racing this server's own close can end in a reset that Transports.close() reports as a loss)
            ChannelFuture f = connect(plain.getLocalPort(), FOUR.toBuilder().set(FerryChannelOption.LINGER, Duration.ZERO).build());
            assertTrue(f.await(10, TimeUnit.SECONDS));
            ConnectException e = assertInstanceOf(ConnectException.class, f.cause());
            assertTrue(e.getMessage().contains("does not carry striped sessions: it answered 'SSH-2.0-OpenSSH_9.2"), e.getMessage());
            // the listener stays until every member connection it accepted has ended (a member whose connect the
            // failed session cancelled before the handshake never reaches it: on a loaded machine the greeting
            // can fail the session before all four connected)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            synchronized (counts) {
                while ((counts[0] == 0 || counts[1] < counts[0]) && System.nanoTime() < deadline) {
                    counts.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                }
                assertTrue(counts[0] >= 1 && counts[1] == counts[0],
                        "every member connection was closed: " + counts[1] + " of " + counts[0] + " accepted ended");
            }
        }
    }

    @Test
    void aMalformedBlockFailsThatChannelOnlyAndTheListenerGoesOn() throws Exception {
        CompletableFuture<Throwable> childError = new CompletableFuture<>();
        Channel server = listen(FOUR, ch -> ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ReferenceCountUtil.release(msg);
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                childError.complete(cause);
            }
        }));
        try {
            UUID session = UUID.randomUUID();
            Socket[] members = new Socket[2];
            for (int i = 0; i < 2; i++) {
                members[i] = new Socket(InetAddress.getLoopbackAddress(), port(server));
                InputStream in = members[i].getInputStream();
                assertEquals(16, in.readNBytes(16).length, "greeting");
                DataOutputStream out = new DataOutputStream(members[i].getOutputStream());
                out.write("FERRY-STRIPED/1\n".getBytes(StandardCharsets.US_ASCII));
                out.writeLong(session.getMostSignificantBits());
                out.writeLong(session.getLeastSignificantBits());
                out.writeShort(i);
                out.writeShort(2);
                out.flush();
            }
            DataOutputStream out = new DataOutputStream(members[0].getOutputStream());
            out.writeLong(0);
            out.writeInt(64 << 20); // longer than any block may be
            out.flush();
            Throwable cause = childError.get(20, TimeUnit.SECONDS);
            assertInstanceOf(java.net.ProtocolException.class, cause);
            assertTrue(cause.getMessage().contains("malformed block (offset 0, length 67108864"), cause.getMessage());
            for (Socket s : members) {
                s.close();
            }
            // the listener still serves a correct client
            Channel client = connect(port(server), FOUR).sync().channel();
            client.writeAndFlush(Unpooled.wrappedBuffer(new byte[1000])).sync();
            client.close().sync();
        } finally {
            server.close().sync();
        }
    }

    @Test
    void aMemberThatIsResetFailsTheChannelWithAClearError() throws Exception {
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        Channel server = listen(FOUR, accepted::complete);
        CompletableFuture<Throwable> clientError = new CompletableFuture<>();
        Channel client = ferry.connect("tcp://127.0.0.1:" + port(server), new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        clientError.complete(cause);
                    }
                });
            }
        }, FOUR).sync().channel();
        try {
            StripedChannel child = (StripedChannel) accepted.get(20, TimeUnit.SECONDS);
            FerryChannels.abort(child.members().get(2)).sync();
            Throwable cause = clientError.get(20, TimeUnit.SECONDS);
            // the peer fails its channel at once and resets every member: whichever reset comes first is named
            assertTrue(cause.getMessage().matches("(?s)member connection [0-3] of 4 of .* failed: .*"), cause.getMessage());
            assertTrue(client.closeFuture().await(20, TimeUnit.SECONDS), "the striped channel closes");
            assertTrue(child.closeFuture().await(20, TimeUnit.SECONDS), "and so does the peer's");
        } finally {
            server.close().sync();
        }
    }

    @Test
    void aStalledMemberHoldsTheOthersBackAtTheReorderBoundAndNothingIsLost() throws Exception {
        long total = 24L << 20;
        java.util.concurrent.atomic.AtomicLong maxHeld = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong received = new java.util.concurrent.atomic.AtomicLong();
        java.security.MessageDigest receivedDigest = java.security.MessageDigest.getInstance("SHA-256");
        CompletableFuture<byte[]> done = new CompletableFuture<>();
        CompletableFuture<StripedChannel> accepted = new CompletableFuture<>();
        ChannelOptions two = ChannelOptions.builder().set(FerryChannelOption.STREAMS, 2).build();
        Channel server = listen(two, ch -> ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void handlerAdded(ChannelHandlerContext ctx) {
                accepted.complete((StripedChannel) ctx.channel());
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                io.netty.buffer.ByteBuf buf = (io.netty.buffer.ByteBuf) msg;
                maxHeld.accumulateAndGet(((StripedChannel) ctx.channel()).heldBytes(), Math::max);
                received.addAndGet(buf.readableBytes());
                receivedDigest.update(buf.nioBuffer());
                buf.release();
                if (received.get() == total) {
                    done.complete(receivedDigest.digest());
                }
            }
        }));
        try (io.ferry.transport.conformance.SlowTcpRelay relay = new io.ferry.transport.conformance.SlowTcpRelay(
                (InetSocketAddress) server.localAddress(), 50_000_000)) {
            java.security.MessageDigest sentDigest = java.security.MessageDigest.getInstance("SHA-256");
            java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
            java.util.SplittableRandom random = new java.util.SplittableRandom(5);
            Channel client = ferry.connect("tcp://127.0.0.1:" + relay.address().getPort(), new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    writeMore(ctx);
                }

                @Override
                public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                    writeMore(ctx);
                }

                private void writeMore(ChannelHandlerContext ctx) {
                    while (written.get() < total && ctx.channel().isWritable()) {
                        byte[] chunk = new byte[64 << 10];
                        random.nextBytes(chunk);
                        sentDigest.update(chunk);
                        written.addAndGet(chunk.length);
                        ctx.write(Unpooled.wrappedBuffer(chunk));
                    }
                    ctx.flush();
                }
            }, two).sync().channel();
            // The client is up once it sent its hellos; the listener has the session once both arrived through the
            // relay. Pausing before that stalled the second hello itself (the session never formed; CI, 2026-11-28).
            StripedChannel reader = accepted.get(20, TimeUnit.SECONDS);
            relay.pause(1); // the second member's path stalls once the session is up
            long before;
            long after = written.get();
            do { // until the writer is held back: nothing more taken for a second
                before = after;
                Thread.sleep(1000);
                after = written.get();
            } while (after != before && after < total);
            assertTrue(after < total, "the writer is held back while one member's path is stalled");
            assertFalse(client.isWritable(), "the striped channel reports unwritable");
            // nothing is delivered while every byte waits behind the gap, so ask the reader itself as well
            long heldNow = reader.eventLoop().submit(reader::heldBytes).get(20, TimeUnit.SECONDS);
            long held = Math.max(maxHeld.get(), heldNow);
            assertTrue(held > 0, "the reader held bytes behind the stalled member's gap");
            // a member reads up to 16 x 64 KiB per cycle, and one more cycle may run before it is switched off
            assertTrue(held <= StripedChannel.REORDER_LIMIT + (4 << 20),
                    "the reader held at most the reorder bound (and the reads of the member ahead): " + held);
            relay.resume(1);
            byte[] got = done.get(60, TimeUnit.SECONDS);
            client.eventLoop().submit(() -> { }).sync(); // the writer's digest is complete once all was written
            assertTrue(java.util.Arrays.equals(sentDigest.digest(), got), "every byte arrived, in order");
            client.close().sync();
        } finally {
            server.close().sync();
        }
    }
    @Test
    void withOneStreamAFileRegionGoesToTheMemberWholeAndArrivesIntact() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("striped-region", ".bin");
        try {
            byte[] data = new byte[3_000_000];
            new java.util.SplittableRandom(7).nextBytes(data);
            java.nio.file.Files.write(file, data);
            java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
            CompletableFuture<byte[]> done = new CompletableFuture<>();
            ChannelOptions one = ChannelOptions.builder().set(FerryChannelOption.STREAMS, 1).build();
            Channel server = listen(one, ch -> ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    io.netty.buffer.ByteBuf buf = (io.netty.buffer.ByteBuf) msg;
                    byte[] b = new byte[buf.readableBytes()];
                    buf.readBytes(b);
                    buf.release();
                    got.write(b, 0, b.length);
                    if (got.size() >= data.length + 3) {
                        done.complete(got.toByteArray());
                    }
                }
            }));
            try {
                StripedChannel client = (StripedChannel) connect(port(server), one).sync().channel();
                assertTrue(client.carriesFileRegions(), "one stream over a kernel socket carries file regions");
                {
                    client.write(Unpooled.wrappedBuffer(new byte[] {1, 2}));
                    client.write(new io.netty.channel.DefaultFileRegion(file.toFile(), 0, 1_000_000));
                    client.write(new io.netty.channel.DefaultFileRegion(file.toFile(), 1_000_000, data.length - 1_000_000));
                    client.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {3})).sync();
                    byte[] all = done.get(20, TimeUnit.SECONDS);
                    byte[] expected = new byte[data.length + 3];
                    expected[0] = 1;
                    expected[1] = 2;
                    System.arraycopy(data, 0, expected, 2, data.length);
                    expected[expected.length - 1] = 3;
                    assertTrue(java.util.Arrays.equals(expected, all), "the bytes around and inside the regions arrive in order");
                    assertEquals(data.length + 3, FerryChannels.statistics(client).bytesSent(), "the regions count as sent bytes");
                }
                client.close().sync();
            } finally {
                server.close().sync();
            }
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    @Test
    void withSeveralStreamsAFileRegionIsCutIntoBlocksAcrossTheMembers() throws Exception {
        byte[] content = new byte[1 << 20];
        new java.util.Random(7).nextBytes(content);
        java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
        java.util.concurrent.CompletableFuture<byte[]> all = new java.util.concurrent.CompletableFuture<>();
        Channel server = listen(FOUR, ch -> ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                io.netty.buffer.ByteBuf buf = (io.netty.buffer.ByteBuf) msg;
                try {
                    buf.readBytes(got, buf.readableBytes());
                } catch (java.io.IOException e) {
                    all.completeExceptionally(e);
                } finally {
                    ReferenceCountUtil.release(msg);
                }
                if (got.size() >= content.length) {
                    all.complete(got.toByteArray());
                }
            }
        }));
        java.nio.file.Path file = java.nio.file.Files.createTempFile("striped-region", ".bin");
        try {
            java.nio.file.Files.write(file, content);
            StripedChannel client = (StripedChannel) connect(port(server), FOUR).sync().channel();
            assertFalse(client.carriesFileRegions(), "blocks are cut from the region, not handed on whole");
            ChannelFuture f = client.writeAndFlush(new io.netty.channel.DefaultFileRegion(file.toFile(), 0, content.length)).sync();
            assertTrue(f.isSuccess());
            org.junit.jupiter.api.Assertions.assertArrayEquals(content, all.get(30, java.util.concurrent.TimeUnit.SECONDS));
            client.close().sync();
        } finally {
            java.nio.file.Files.deleteIfExists(file);
            server.close().sync();
        }
    }
}
