package io.ferry.transport.conformance;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.DataLossException;
import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.Transports;
import io.ferry.transport.metrics.ChannelMetrics;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.ConnectException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The behaviour every Ferry transport must show, run by each transport module against itself
 * (subclass it and return the scheme). Everything goes through the public API: {@link Transports}
 * found by {@link java.util.ServiceLoader}, real sockets on loopback, the leak detector at paranoid.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class TransportConformanceTest implements ApplicationThreadWriters, CloseAfterWrites, FailedChildren, ConnectionFacts, FileRegionWrites, SocketChannelShape, StandardBootstraps {

    protected static final String HOST = "127.0.0.1";
    private static final int BULK = 64 << 20;

    protected Transports ferry;

    /** The scheme under test, e.g. {@code tcp}. */
    protected abstract String scheme();

    /** Something bound on loopback that never answers a connection attempt of this transport. */
    protected UnresponsivePeer openUnresponsivePeer() throws Exception {
        return UnresponsivePeer.udpBlackHole();
    }

    /** Options every test connection gets (a transport may add tuning for loopback). */
    protected ChannelOptions baseOptions() {
        return ChannelOptions.empty();
    }

    /**
     * A path to {@code server} on which data is still in flight when a writer closes; by default a
     * lossy UDP relay (2 % loss, 5 ms each way). A stream transport returns a slow relay.
     */
    protected ImpairedPath openImpairedPath(InetSocketAddress server) throws Exception {
        return new LossyUdpRelay(server, 0.02, 5, 7);
    }

    /**
     * Whether a graceful close can tell when the peer acknowledged everything (false for TCP over Java
     * NIO, which hands the data to the kernel and cannot ask it).
     */
    protected boolean closeObservesAcknowledgements() {
        return true;
    }

    /**
     * Bytes each bulk transfer test moves each way, verified by SHA-256: 64 MiB, enough for several
     * round trips of every window a transport opens on loopback. A transport whose loopback rate is far
     * below the others' may move less, and says why.
     */
    protected int bulkBytes() {
        return BULK;
    }

    /** How the suite obtains its transports; by default through {@link java.util.ServiceLoader}. */
    protected Transports createTransports() {
        return Transports.create();
    }

    @BeforeAll
    void openTransports() {
        ferry = createTransports();
        assertTrue(ferry.schemes().contains(scheme()), "scheme " + scheme() + " is installed: " + ferry.schemes());
    }

    @AfterAll
    void closeTransports() {
        if (ferry != null) {
            ferry.close();
        }
    }

    // ------------------------------------------------------------------ helpers

    protected String uri(int port) {
        return scheme() + "://" + HOST + ":" + port;
    }

    protected Channel listen(ChannelOptions options, Consumer<Channel> childSetup) throws InterruptedException {
        ChannelFuture bound = ferry.listen(uri(0), new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                childSetup.accept(ch);
            }
        }, baseOptions().toBuilder().setAll(options).build());
        assertTrue(bound.await(20, TimeUnit.SECONDS), "listener bound in time");
        if (!bound.isSuccess()) {
            fail("listen failed", bound.cause());
        }
        return bound.channel();
    }

    protected Channel listen(Consumer<Channel> childSetup) throws InterruptedException {
        return listen(ChannelOptions.empty(), childSetup);
    }

    protected Channel connect(Channel server, ChannelOptions options, Consumer<Channel> setup) throws InterruptedException {
        ChannelFuture connected = connectFuture(port(server), options, setup);
        assertTrue(connected.await(20, TimeUnit.SECONDS), "connected in time");
        if (!connected.isSuccess()) {
            fail("connect failed", connected.cause());
        }
        return connected.channel();
    }

    protected Channel connect(Channel server, Consumer<Channel> setup) throws InterruptedException {
        return connect(server, ChannelOptions.empty(), setup);
    }

    private ChannelFuture connectFuture(int port, ChannelOptions options, Consumer<Channel> setup) {
        return ferry.connect(uri(port), new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                setup.accept(ch);
            }
        }, baseOptions().toBuilder().setAll(options).build());
    }

    @Override
    public Channel listenForTest(Consumer<Channel> childSetup) throws InterruptedException {
        return listen(childSetup);
    }

    @Override
    public Channel connectForTest(Channel server, Consumer<Channel> setup) throws InterruptedException {
        return connect(server, setup);
    }

    @Override
    public Transports transportsForTest() {
        return ferry;
    }

    @Override
    public Transports newTransportsForTest() {
        return createTransports();
    }

    @Override
    public String uriForTest(int port) {
        return uri(port);
    }

    @Override
    public ChannelOptions optionsForTest() {
        return baseOptions();
    }

    @Override
    public int bulkBytesForTest() {
        return bulkBytes();
    }

    protected static int port(Channel server) {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    protected static <T> T await(CompletableFuture<T> future, String what) throws Exception {
        try {
            return future.get(90, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("timed out waiting for " + what, e);
        } catch (ExecutionException e) {
            throw new AssertionError(what + " failed: " + e.getCause(), e.getCause());
        }
    }

    private static void closeAll(Channel... channels) throws InterruptedException {
        for (Channel c : channels) {
            if (c != null) {
                assertTrue(c.close().await(20, TimeUnit.SECONDS), "closed in time: " + c);
            }
        }
    }

    private static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    // ------------------------------------------------------------------ tests

    @Test
    void echoesBytesBackUnchanged() throws Exception {
        Channel server = listen(ch -> ch.pipeline().addLast(EchoHandler.INSTANCE));
        byte[] payload = randomBytes(256 * 1024, 1);
        ByteCollector collector = new ByteCollector(payload.length);
        Channel client = connect(server, ch -> ch.pipeline().addLast(collector));
        try {
            for (int off = 0; off < payload.length; off += 40_000) {
                client.write(Unpooled.wrappedBuffer(payload, off, Math.min(40_000, payload.length - off)));
            }
            client.flush();
            assertArrayEquals(payload, await(collector.done(), "echo"));
        } finally {
            closeAll(client, server);
        }
    }

    @Test
    void compositeBuffersOfDirectAndHeapPartsArriveIntact() throws Exception {
        // Codecs such as gRPC's HTTP/2 write composite buffers; every part must reach the wire in order.
        Channel server = listen(ch -> ch.pipeline().addLast(EchoHandler.INSTANCE));
        byte[] payload = randomBytes(300_000, 9);
        ByteCollector collector = new ByteCollector(payload.length);
        Channel client = connect(server, ch -> ch.pipeline().addLast(collector));
        try {
            for (int off = 0; off < payload.length; off += 100_000) {
                CompositeByteBuf composite = client.alloc().compositeBuffer();
                ByteBuf direct = client.alloc().directBuffer(60_000).writeBytes(payload, off, 60_000);
                ByteBuf heap = Unpooled.wrappedBuffer(payload, off + 60_000, 40_000);
                composite.addComponents(true, direct, heap);
                client.write(composite);
            }
            client.flush();
            assertArrayEquals(payload, await(collector.done(), "echo of composite buffers"));
        } finally {
            closeAll(client, server);
        }
    }

    @Test
    void bulkTransferFromClientToServerArrivesIntact() throws Exception {
        int bulk = bulkBytes();
        CompletableFuture<byte[]> serverDigest = new CompletableFuture<>();
        Channel server = listen(ch -> {
            StreamSink sink = new StreamSink(bulk, (ctx, digest) -> ctx.writeAndFlush(Unpooled.wrappedBuffer(digest)));
            sink.received().whenComplete((d, e) -> {
                if (e != null) {
                    serverDigest.completeExceptionally(e);
                } else {
                    serverDigest.complete(d);
                }
            });
            ch.pipeline().addLast(sink);
        });
        StreamSource source = new StreamSource(bulk, 64 * 1024, 2);
        ByteCollector reply = new ByteCollector(32);
        Channel client = connect(server, ch -> ch.pipeline().addLast(source, reply));
        try {
            byte[] sent = await(source.sentDigest(), "all bytes queued");
            assertArrayEquals(sent, await(serverDigest, "server received the bulk transfer"), "server's SHA-256 matches");
            assertArrayEquals(sent, await(reply.done(), "digest echoed back"), "client saw the server's SHA-256");
            TransportStatistics stats = FerryChannels.statistics(client);
            assertEquals(ferry.transport(scheme()).name(), stats.transport());
            assertTrue(stats.bytesSent() >= bulk, "statistics count the bytes sent: " + stats);
        } finally {
            closeAll(client, server);
        }
    }

    @Test
    void bulkTransferFromServerToClientArrivesIntact() throws Exception {
        int bulk = bulkBytes();
        AtomicReference<StreamSource> serverSource = new AtomicReference<>();
        Channel server = listen(ch -> {
            StreamSource source = new StreamSource(bulk, 64 * 1024, 3);
            serverSource.set(source);
            ch.pipeline().addLast(source);
        });
        StreamSink sink = new StreamSink(bulk, (ctx, d) -> { });
        Channel client = connect(server, ch -> ch.pipeline().addLast(sink));
        try {
            byte[] received = await(sink.received(), "client received the bulk transfer");
            assertNotNull(serverSource.get());
            assertArrayEquals(await(serverSource.get().sentDigest(), "server queued all"), received);
            TransportStatistics stats = FerryChannels.statistics(client);
            assertTrue(stats.bytesReceived() >= bulk, "statistics count the bytes received: " + stats);
        } finally {
            closeAll(client, server);
        }
    }

    @Test
    void halfClosedConnectionStillCarriesTheReply() throws Exception {
        ChannelOptions halfClose = ChannelOptions.builder().set(ChannelOption.ALLOW_HALF_CLOSURE, true).build();
        Channel server = listen(halfClose, ch -> ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            long count;

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                count += ((ByteBuf) msg).readableBytes();
                ReferenceCountUtil.release(msg);
            }

            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                if (evt instanceof ChannelInputShutdownEvent) {
                    // The peer has finished sending; it can still read our answer.
                    ctx.writeAndFlush(ctx.alloc().buffer(8).writeLong(count)).addListener(ChannelFutureListener.CLOSE);
                }
            }
        }));
        ByteCollector reply = new ByteCollector(8);
        Channel client = connect(server, halfClose, ch -> ch.pipeline().addLast(reply));
        try {
            byte[] payload = randomBytes(100_000, 4);
            client.writeAndFlush(Unpooled.wrappedBuffer(payload)).sync();
            assertTrue(FerryChannels.shutdownOutput(client).await(20, TimeUnit.SECONDS));
            assertTrue(((DuplexChannel) client).isOutputShutdown(), "client output is shut down");
            byte[] answer = await(reply.done(), "reply after half-close");
            assertEquals(payload.length, Unpooled.wrappedBuffer(answer).readLong(), "server saw every byte before end of stream");
            await(reply.inputShutdown, "end of stream after the reply");
        } finally {
            closeAll(client, server);
        }
    }

    /** How long a writer must take nothing, unwritable, to count as stalled behind a reader that does not read. */
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(2);

    @Test
    void slowReaderMakesWriterUnwritableAndMemoryStaysBounded() throws Exception {
        AtomicReference<Channel> serverChild = new AtomicReference<>();
        CompletableFuture<byte[]> serverDigest = new CompletableFuture<>();
        Channel server = listen(ch -> {
            ch.config().setAutoRead(false); // the reader does not read: it is as slow as can be
            serverChild.set(ch);
            StreamSink sink = new StreamSink(BULK, (ctx, d) -> { });
            sink.received().whenComplete((d, e) -> {
                if (e != null) {
                    serverDigest.completeExceptionally(e);
                } else {
                    serverDigest.complete(d);
                }
            });
            ch.pipeline().addLast(sink);
        });
        StreamSource source = new StreamSource(BULK, 64 * 1024, 5);
        Channel client = connect(server, ch -> ch.pipeline().addLast(source));
        try {
            // The writer has stalled when the transport took nothing for STALL_NANOS in a row (woken by
            // every write it completes) and its channel is unwritable: two samples 500 ms apart could meet
            // in a pause of a transport still taking data (a retransmission timeout) and call it a stall.
            assertTrue(source.awaitNoProgressFor(STALL_NANOS, TimeUnit.SECONDS.toNanos(30)),
                    "the writer stalls while the reader is not reading: after 30 s the transport still took data ("
                            + source.flushedToTransport() + " bytes)");
            long after = source.flushedToTransport();
            assertTrue(source.everUnwritable() && !client.isWritable(), "the writer's channel reports unwritable");
            assertTrue(after < BULK / 2, "the transport buffers a bounded amount (" + after + " bytes) for a stalled reader");
            int highWater = client.config().getWriteBufferHighWaterMark();
            assertTrue(source.maxPendingOutbound() <= highWater + 64 * 1024,
                    "pending outbound bytes stayed under the high-water mark: " + source.maxPendingOutbound());

            serverChild.get().config().setAutoRead(true);
            byte[] sent = await(source.sentDigest(), "writer resumed and queued all");
            assertArrayEquals(sent, await(serverDigest, "reader got everything after resuming"));
        } finally {
            closeAll(client, server);
        }
    }

    @Test
    void servesThirtyTwoConcurrentConnections() throws Exception {
        Channel server = listen(ch -> ch.pipeline().addLast(EchoHandler.INSTANCE));
        int n = 32;
        int size = 256 * 1024;
        List<Channel> clients = new ArrayList<>();
        List<CompletableFuture<byte[]>> echoes = new ArrayList<>();
        List<byte[]> payloads = new ArrayList<>();
        try {
            List<ChannelFuture> connects = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ByteCollector collector = new ByteCollector(size);
                echoes.add(collector.done());
                payloads.add(randomBytes(size, 100 + i));
                connects.add(connectFuture(port(server), ChannelOptions.empty(), ch -> ch.pipeline().addLast(collector)));
            }
            for (int i = 0; i < n; i++) {
                ChannelFuture f = connects.get(i);
                assertTrue(f.await(30, TimeUnit.SECONDS), "connection " + i + " in time");
                if (!f.isSuccess()) {
                    fail("connection " + i + " failed", f.cause());
                }
                clients.add(f.channel());
                f.channel().writeAndFlush(Unpooled.wrappedBuffer(payloads.get(i)));
            }
            Set<Object> localAddresses = clients.stream().map(Channel::localAddress).collect(Collectors.toSet());
            assertEquals(n, localAddresses.size(), "every connection is distinct");
            for (int i = 0; i < n; i++) {
                assertArrayEquals(payloads.get(i), await(echoes.get(i), "echo on connection " + i), "connection " + i);
            }
        } finally {
            closeAll(clients.toArray(new Channel[0]));
            closeAll(server);
        }
    }

    @Test
    void connectionRefusedFailsFastWithConnectException() throws Exception {
        int port = unusedPort();
        long start = System.nanoTime();
        ChannelFuture f = connectFuture(port, ChannelOptions.builder()
                .set(FerryChannelOption.CONNECT_TIMEOUT, Duration.ofSeconds(30)).build(), ch -> { });
        assertTrue(f.await(15, TimeUnit.SECONDS), "a refused connect ends well before the connect timeout");
        assertFalse(f.isSuccess());
        assertInstanceOf(ConnectException.class, f.cause(), "refused is a ConnectException: " + f.cause());
        assertFalse(f.cause() instanceof ConnectTimeoutException, "refused is not reported as a timeout: " + f.cause());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(15));
    }

    /**
     * The kernel may give a client's own socket the very port it dials (one a listener just freed, as
     * {@link #unusedPort()} does): TCP then connects to itself (a simultaneous open), and a UDP transport's
     * handshake would reach only itself. Either way the connect ends at once, never by its timeout.
     */
    @Test
    void aClientGivenTheAddressItDialsEndsWellBeforeTheConnectTimeout() throws Exception {
        InetSocketAddress self = new InetSocketAddress("127.0.0.1", unusedPort());
        ChannelOptions options = optionsForTest().toBuilder()
                .set(FerryChannelOption.CONNECT_TIMEOUT, Duration.ofSeconds(30)).build();
        String scheme = java.net.URI.create(uriForTest(1)).getScheme();
        ChannelFuture f = transportsForTest().bootstrapping(scheme, options).bootstrap()
                .handler(new ChannelInboundHandlerAdapter())
                .connect(self, self);
        try {
            assertTrue(f.await(15, TimeUnit.SECONDS), "ends well before the 30 s connect timeout");
            if (!f.isSuccess()) {
                assertInstanceOf(java.net.SocketException.class, f.cause(), "a refusal or a bind failure: " + f.cause());
                assertFalse(f.cause() instanceof ConnectTimeoutException, "not a timeout: " + f.cause());
            }
        } finally {
            assertTrue(f.channel().close().await(20, TimeUnit.SECONDS), "the channel closed");
        }
    }

    @Test
    void unresponsivePeerFailsWithConnectTimeout() throws Exception {
        try (UnresponsivePeer peer = openUnresponsivePeer()) {
            long start = System.nanoTime();
            ChannelFuture f = connectFuture(peer.address().getPort(), ChannelOptions.builder()
                    .set(FerryChannelOption.CONNECT_TIMEOUT, Duration.ofSeconds(1)).build(), ch -> { });
            assertTrue(f.await(20, TimeUnit.SECONDS), "connect gives up in bounded time");
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertFalse(f.isSuccess(), "connect to an unresponsive peer must fail");
            assertInstanceOf(ConnectTimeoutException.class, f.cause(), "a timeout is a ConnectTimeoutException: " + f.cause());
            assertTrue(elapsedMs >= 900, "the timeout was honoured, not cut short: " + elapsedMs + " ms");
        }
    }

    @Test
    void gracefulCloseDeliversEverythingWrittenBeforeIt() throws Exception {
        int size = 4 << 20;
        CompletableFuture<Void> serverSawClose = new CompletableFuture<>();
        StreamSink[] sink = new StreamSink[1];
        Channel server = listen(ch -> {
            sink[0] = new StreamSink(size, (ctx, d) -> { });
            ch.pipeline().addLast(sink[0]);
            ch.closeFuture().addListener(f -> serverSawClose.complete(null));
        });
        byte[] payload = randomBytes(size, 6);
        Channel client = connect(server, ch -> { });
        client.writeAndFlush(Unpooled.wrappedBuffer(payload)).addListener(ChannelFutureListener.CLOSE);
        await(serverSawClose, "server sees the connection end");
        byte[] expected = PatternStream.sha256().digest(payload);
        assertArrayEquals(expected, sink[0].received().getNow(null), "every byte arrived before the close");
        assertTrue(client.closeFuture().await(20, TimeUnit.SECONDS));
        closeAll(server);
    }

    /** Keeps what a connection receives, to compare with what was sent; completes {@link #ended} when it closes. */
    private static final class Recorder extends ChannelInboundHandlerAdapter {
        final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        final CompletableFuture<Void> ended = new CompletableFuture<>();
        final CompletableFuture<Void> started = new CompletableFuture<>();
        final long startAfter;
        volatile Channel channel;

        Recorder(long startAfter) {
            this.startAfter = startAfter;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            channel = ctx.channel();
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                synchronized (bytes) {
                    buf.readBytes(bytes, buf.readableBytes());
                    if (bytes.size() >= startAfter) {
                        started.complete(null);
                    }
                }
            } catch (java.io.IOException cannotHappen) {
                throw new IllegalStateException(cannotHappen);
            } finally {
                buf.release();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            ended.complete(null);
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }

        byte[] received() {
            synchronized (bytes) {
                return bytes.toByteArray();
            }
        }
    }

    private Channel connectThrough(Transports writer, ImpairedPath path, ChannelOptions options) throws InterruptedException {
        ChannelFuture connected = writer.connect(scheme() + "://" + HOST + ":" + path.address().getPort(), new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                // the writer only writes
            }
        }, baseOptions().toBuilder().setAll(options).build());
        assertTrue(connected.await(20, TimeUnit.SECONDS), "connected through " + path + " in time");
        if (!connected.isSuccess()) {
            fail("connect through " + path + " failed", connected.cause());
        }
        return connected.channel();
    }

    private static void assertPrefix(byte[] payload, byte[] received, String what) {
        assertTrue(received.length <= payload.length, what + ": no more bytes than were sent");
        assertArrayEquals(java.util.Arrays.copyOf(payload, received.length), received, what + ": what arrived is the stream's start, intact");
    }

    @Test
    void naiveWriterThatClosesAndClosesItsTransportsDeliversEverythingOverAnImpairedPath() throws Exception {
        int size = 1 << 20;
        byte[] payload = randomBytes(size, 11);
        Recorder recorder = new Recorder(size);
        Channel server = listen(ch -> ch.pipeline().addLast(recorder));
        try (ImpairedPath path = openImpairedPath((InetSocketAddress) server.localAddress())) {
            Transports writer = createTransports();
            ChannelFuture closing;
            try {
                Channel client = connectThrough(writer, path, ChannelOptions.empty());
                client.writeAndFlush(Unpooled.wrappedBuffer(payload));
                closing = client.close(); // not awaited: the program goes straight on to close its transports
            } finally {
                writer.close(); // would throw DataLossException naming what was dropped
            }
            assertTrue(closing.isDone(), "Transports.close() returned only after the connection's close completed");
            assertTrue(closing.isSuccess(), () -> "the close succeeded: " + closing.cause());
            await(recorder.ended, "the receiver sees the connection end");
            byte[] received = recorder.received();
            assertEquals(size, received.length, "every byte arrived over " + path);
            assertPrefix(payload, received, "over " + path);
        }
        closeAll(server);
    }

    /**
     * Connects through {@code path} with {@code linger}, writes {@code payload}, and once the first bytes
     * reached the receiver makes the path drop everything; returns the writing channel.
     */
    private Channel writeThenCutThePath(Transports writer, ImpairedPath path, Recorder recorder, byte[] payload,
                                        Duration linger) throws Exception {
        Channel client = connectThrough(writer, path, ChannelOptions.builder().set(FerryChannelOption.LINGER, linger).build());
        client.writeAndFlush(Unpooled.wrappedBuffer(payload));
        await(recorder.started, "the first 64 KiB cross the path");
        path.blackhole();
        return client;
    }

    @Test
    void closeOverADeadPathFailsNamingTheBytesNotAcknowledged() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(closeObservesAcknowledgements(),
                "this transport cannot observe acknowledgements; the kernel delivers after the close");
        // more than a dead path can hold: the relay's buffers take up to 68 KiB per connection, over a
        // megabyte for a channel striped over 16, which could acknowledge a 1 MiB payload in full
        int size = 4 << 20;
        byte[] payload = randomBytes(size, 12);
        Recorder recorder = new Recorder(64 << 10);
        Channel server = listen(ch -> ch.pipeline().addLast(recorder));
        try (ImpairedPath path = openImpairedPath((InetSocketAddress) server.localAddress())) {
            Transports writer = createTransports();
            ChannelFuture closing;
            DataLossException loss;
            try {
                Channel client = writeThenCutThePath(writer, path, recorder, payload, Duration.ofSeconds(1));
                closing = client.close();
            } finally {
                loss = assertThrows(DataLossException.class, writer::close, "closing the transports reports the loss");
            }
            assertTrue(closing.isDone(), "the close completed within its linger");
            UndeliveredDataException undelivered = assertInstanceOf(UndeliveredDataException.class, closing.cause(),
                    "the close failed naming the shortfall: " + closing.cause());
            assertTrue(loss.losses().contains(undelivered), "Transports.close() reports the same loss: " + loss.losses());
            byte[] received = recorder.received();
            assertPrefix(payload, received, "over the dead path");
            long missing = size - received.length;
            assertTrue(missing > 0, "the dead path kept some bytes from the receiver");
            assertTrue(undelivered.unacknowledgedBytes() > 0, undelivered.getMessage());
            assertTrue(undelivered.unacknowledgedBytes() + path.maxHeldBytes() >= missing,
                    "every byte that did not arrive is counted: " + missing + " missing, " + undelivered.getMessage());
            if (!undelivered.isEstimated()) {
                assertTrue(undelivered.unacknowledgedBytes() <= size, undelivered.getMessage());
            }
            assertTrue(undelivered.getMessage().contains(Long.toString(undelivered.unacknowledgedBytes())),
                    "the message names the count: " + undelivered.getMessage());
            Channel child = recorder.channel;
            if (child != null) {
                FerryChannels.abort(child).await(5, TimeUnit.SECONDS); // its peer is gone: nothing to linger for
            }
        }
        closeAll(server);
    }

    @Test
    void abortCutsALingeringCloseShort() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(closeObservesAcknowledgements(),
                "this transport hands a close to the kernel and does not linger");
        // more than a dead path can hold: the relay's buffers take up to 68 KiB per connection, over a
        // megabyte for a channel striped over 16, which could acknowledge a 1 MiB payload in full
        int size = 4 << 20;
        byte[] payload = randomBytes(size, 13);
        Recorder recorder = new Recorder(64 << 10);
        Channel server = listen(ch -> ch.pipeline().addLast(recorder));
        try (ImpairedPath path = openImpairedPath((InetSocketAddress) server.localAddress())) {
            Transports writer = createTransports();
            try {
                Channel client = writeThenCutThePath(writer, path, recorder, payload, Duration.ofSeconds(60));
                ChannelFuture closing = client.close();
                assertFalse(closing.await(200, TimeUnit.MILLISECONDS),
                        "the close lingers, waiting for acknowledgements the dead path keeps back");
                ChannelFuture aborted = FerryChannels.abort(client);
                assertTrue(aborted.await(10, TimeUnit.SECONDS), "the abort completes");
                assertTrue(closing.await(10, TimeUnit.SECONDS), "the lingering close ends with the abort, not after its 60 s linger");
                assertFalse(client.isOpen(), "the channel is closed");
                if (!closing.isSuccess()) {
                    assertInstanceOf(UndeliveredDataException.class, closing.cause(),
                            "a close cut short says what was not delivered: " + closing.cause());
                }
            } finally {
                try {
                    writer.close();
                } catch (DataLossException expected) {
                    // the abort discarded what the dead path kept back; that is reported, as it should be
                }
            }
            Channel child = recorder.channel;
            if (child != null) {
                FerryChannels.abort(child).await(5, TimeUnit.SECONDS);
            }
        }
        closeAll(server);
    }

    @Test
    void abortiveCloseEndsThePeersConnection() throws Exception {
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        Channel server = listen(ch -> {
            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ReferenceCountUtil.release(msg);
                    accepted.complete(ctx.channel());
                }
            });
        });
        ConcurrentLinkedQueue<Throwable> clientErrors = new ConcurrentLinkedQueue<>();
        Channel client = connect(server, ch -> ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                clientErrors.add(cause);
                ctx.close();
            }
        }));
        client.writeAndFlush(Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII));
        Channel child = await(accepted, "server read the first bytes");
        assertTrue(FerryChannels.abort(child).await(10, TimeUnit.SECONDS), "abort completes");
        assertFalse(child.isOpen(), "the aborting side is closed");
        assertTrue(client.closeFuture().await(20, TimeUnit.SECONDS), "the peer's connection ends after a reset");
        ChannelFuture late = client.writeAndFlush(Unpooled.copiedBuffer("late", StandardCharsets.US_ASCII));
        assertTrue(late.await(10, TimeUnit.SECONDS));
        assertFalse(late.isSuccess(), "writing to a reset connection fails");
        closeAll(server);
    }

    @Test
    void sameUserPipelineWithTlsAndFramingWorksUnchanged() throws Exception {
        SelfSignedTls tls = new SelfSignedTls();
        Channel server = listen(ch -> ch.pipeline().addLast(
                tls.server.newHandler(ch.alloc()),
                new LengthFieldBasedFrameDecoder(1 << 20, 0, 4, 0, 4),
                new LengthFieldPrepender(4),
                EchoHandler.INSTANCE));
        List<byte[]> frames = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 200; i++) {
            frames.add(randomBytes(random.nextInt(1, 64 * 1024), 1000 + i));
        }
        CompletableFuture<List<byte[]>> echoed = new CompletableFuture<>();
        List<byte[]> got = new ArrayList<>();
        Channel client = connect(server, ch -> ch.pipeline().addLast(
                tls.client.newHandler(ch.alloc(), "localhost", port(server)),
                new LengthFieldBasedFrameDecoder(1 << 20, 0, 4, 0, 4),
                new LengthFieldPrepender(4),
                new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf frame = (ByteBuf) msg;
                        byte[] b = new byte[frame.readableBytes()];
                        frame.readBytes(b);
                        frame.release();
                        got.add(b);
                        if (got.size() == frames.size()) {
                            echoed.complete(got);
                        }
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        echoed.completeExceptionally(cause);
                    }
                }));
        try {
            SslHandler ssl = client.pipeline().get(SslHandler.class);
            assertTrue(ssl.handshakeFuture().await(20, TimeUnit.SECONDS), "TLS handshake in time");
            assertTrue(ssl.handshakeFuture().isSuccess(), () -> "TLS handshake: " + ssl.handshakeFuture().cause());
            for (byte[] frame : frames) {
                client.write(Unpooled.wrappedBuffer(frame));
            }
            client.flush();
            List<byte[]> result = await(echoed, "200 framed TLS messages echoed");
            for (int i = 0; i < frames.size(); i++) {
                assertArrayEquals(frames.get(i), result.get(i), "frame " + i);
            }
        } finally {
            closeAll(client, server);
        }
    }

    @Test
    void publishesTheSameMetersAsEveryTransport() throws Exception {
        Channel server = listen(ch -> ch.pipeline().addLast(EchoHandler.INSTANCE));
        byte[] payload = randomBytes(100_000, 8);
        ByteCollector collector = new ByteCollector(payload.length);
        Channel client = connect(server, ch -> ch.pipeline().addLast(collector));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try {
            ChannelMetrics.bind(client, registry, List.of());
            System.gc(); // the meters must not depend on the caller keeping the binder
            client.writeAndFlush(Unpooled.wrappedBuffer(payload));
            await(collector.done(), "echo");
            Thread.sleep(ChannelMetrics.DEFAULT_CACHE.toMillis() + 50);
            Set<String> names = registry.getMeters().stream().map(m -> m.getId().getName()).collect(Collectors.toSet());
            assertEquals(Set.of("ferry.transport.bytes.sent", "ferry.transport.bytes.received",
                    "ferry.transport.retransmissions", "ferry.transport.packets.lost", "ferry.transport.rtt",
                    "ferry.transport.rtt.variance", "ferry.transport.congestion.window", "ferry.transport.queuing.delay",
                    "ferry.transport.bandwidth.estimated", "ferry.transport.send.rate"), names);
            for (Meter meter : registry.getMeters()) {
                assertEquals(ferry.transport(scheme()).name(), meter.getId().getTag("transport"), "transport tag of " + meter.getId());
            }
            double sent = registry.get("ferry.transport.bytes.sent").functionCounter().count();
            assertTrue(sent >= payload.length, "bytes.sent counts what was written: " + sent);
            double received = registry.get("ferry.transport.bytes.received").functionCounter().count();
            assertTrue(received >= payload.length, "bytes.received counts what was read: " + received);
        } finally {
            closeAll(client, server);
        }
        assertTrue(registry.getMeters().isEmpty(), "meters are removed when the channel closes");
    }

    @Test
    void optionTheTransportCannotHonourIsRejected() {
        ChannelOption<Boolean> foreign = ChannelOption.valueOf("ferry.conformance.NOT_AN_OPTION");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ferry.connect(uri(9), new io.netty.channel.ChannelHandlerAdapter() { },
                        ChannelOptions.builder().set(foreign, true).build()));
        assertTrue(e.getMessage().contains("NOT_AN_OPTION"), "the message names the option: " + e.getMessage());
    }

    /** A port on loopback where nothing listens, for TCP or UDP. */
    protected static int unusedPort() throws Exception {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            try (DatagramSocket d = new DatagramSocket(new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port))) {
                return port;
            } catch (java.net.BindException taken) {
                // try another
            }
        }
        throw new IllegalStateException("no free port found");
    }
}
