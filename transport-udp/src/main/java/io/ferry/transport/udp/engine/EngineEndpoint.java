package io.ferry.transport.udp.engine;

import io.ferry.transport.ledbat.core.EngineConnection;
import io.ferry.transport.udp.SegmentingSender;
import io.ferry.transport.udp.SendErrors;
import io.ferry.transport.udp.UdpIo;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One UDP socket and the connections it carries, on the socket's event loop: the driver loop every wire
 * shares. A subclass routes each datagram ({@link #onDatagram}: uTP by address and connection id, UDT by
 * socket id) and keeps its table; this class does the rest. After every call into a connection
 * ({@link #afterCall}) its output is collected, its one timer re-armed and, once it is over, it is
 * forgotten. Datagrams produced while a batch of received ones is handled leave in one flush at the
 * batch's end, in GSO runs where the kernel can ({@link SegmentingSender}); while the socket's buffer is
 * over its high-water mark they wait in their connections, which are collected again, oldest first, when
 * it drains. A connection whose handling throws is reset alone ({@link #contain}).
 *
 * <p>Not API: public for the transports built on the engine, which share no package with it.
 *
 * @param <Ch> the transport's channel
 */
public abstract class EngineEndpoint<Ch extends EngineChannel<?, ?>> {

    private static final InternalLogger LOG = InternalLoggerFactory.getInstance(EngineEndpoint.class);
    private static final String HANDLER = "ferry-engine-endpoint";
    static final int DATAGRAMS_PER_CLOCK_READ = 16;

    private final UdpIo io;
    private final String protocol;
    private final boolean clientSocket;
    private final List<EngineChannel<?, ?>> readBatch = new ArrayList<>();
    private final LinkedHashSet<EngineChannel<?, ?>> waitingForSocket = new LinkedHashSet<>();
    private final AtomicLong connectionFailures = new AtomicLong();
    private final AtomicLong socketErrors = new AtomicLong();
    private DatagramChannel socket;
    private SegmentingSender sender;
    private boolean inReadBatch;
    private boolean handlingHandedOver;
    private boolean flushOwed;
    private boolean flushScheduled;
    private boolean acceptorClosed;
    private long socketWaits;
    /** {@link #datagramTime()}'s clock and how many more datagrams of this read batch it serves. */
    private long datagramClock;
    private int datagramsOnClock;

    /**
     * @param protocol     the wire's name, for logs ("uTP", "UDT")
     * @param clientSocket a client's own socket, closed with its last connection (a listener's closes after its listener)
     */
    protected EngineEndpoint(UdpIo io, String protocol, boolean clientSocket) {
        this.io = io;
        this.protocol = protocol;
        this.clientSocket = clientSocket;
    }

    /**
     * A bootstrap for this endpoint's socket on {@code loop}: its buffers, how it reads
     * ({@link UdpIo#configureReads}: {@link UdpIo#READS_PER_LOOP} reads per batch), a 4–8 MiB outbound water
     * mark and the handler that hands datagrams here.
     *
     * @param sendsConnected whether the socket will be connected (datagrams then go without an address)
     */
    protected final Bootstrap bootstrap(EventLoop loop, int packetSize, int receiveBuffer, int sendBuffer, boolean sendsConnected) {
        Bootstrap bootstrap = new Bootstrap().group(loop).channel(io.datagramChannelClass())
                .option(ChannelOption.SO_RCVBUF, receiveBuffer)
                .option(ChannelOption.SO_SNDBUF, sendBuffer)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(4 << 20, 8 << 20))
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        socket = ch;
                        sender = new SegmentingSender(ch, sendsConnected, io.segmentedSends());
                        ch.closeFuture().addListener(f -> abandonAll());
                        ch.pipeline().addLast(HANDLER, new Inbound(EngineEndpoint.this));
                    }
                });
        io.configureReads(bootstrap, packetSize);
        return bootstrap;
    }

    /** The endpoint that owns {@code socket}, opened through {@link #bootstrap}. */
    protected static <E extends EngineEndpoint<?>> E of(Channel socket, Class<E> type) {
        return type.cast(((Inbound) socket.pipeline().get(HANDLER)).endpoint);
    }

    // ------------------------------------------------------------------ what a wire supplies

    /** A datagram arrived; the caller keeps ownership. {@code recipient}: the address it was sent to, where the socket learns it. */
    protected abstract void onDatagram(ByteBuf datagram, InetSocketAddress from, InetSocketAddress recipient);

    /** Removes {@code channel} from the routing table; false if it was not there (forgotten already). */
    protected abstract boolean unregister(Ch channel);

    /** Empties the routing table, returning what it held (the socket closed). */
    protected abstract Collection<Ch> unregisterAll();

    /** The connections in the routing table. */
    protected abstract Collection<Ch> connections();

    // ------------------------------------------------------------------ queries

    public final InetSocketAddress localAddress() {
        return socket == null ? null : socket.localAddress();
    }

    /** The event loop of this endpoint's socket, on which its connections run. */
    public final EventLoop loop() {
        return socket.eventLoop();
    }

    /**
     * The time every call into this endpoint's connections is given: its event loop's {@link
     * io.netty.util.concurrent.Ticker}, the clock the loop's own timers run on (a loop with a mock
     * ticker drives the connections in virtual time). The only clock the engine's channels read.
     */
    public final long now() {
        return socket.eventLoop().ticker().nanoTime();
    }

    /**
     * The time a received datagram is handled at: {@link #now()}, read again only every
     * {@value #DATAGRAMS_PER_CLOCK_READ} datagrams of a read batch. A clock read costs about 30 ns on a VM's
     * kvm-clock, 6 % of a receiver's CPU when read per datagram at 1.5 million a second; 16 datagrams take a
     * few microseconds to handle, and every datagram of a batch was queued before the batch began, so the time
     * read at its start is no worse an arrival time than one read later.
     */
    protected final long datagramTime() {
        if (datagramsOnClock <= 0) {
            datagramClock = now();
            datagramsOnClock = DATAGRAMS_PER_CLOCK_READ;
        }
        datagramsOnClock--;
        return datagramClock;
    }

    /** The I/O implementation, as the statistics name it (e.g. "epoll+gso"). */
    public final String implementation() {
        return io.name() + io.batching(sender != null && sender.isSegmenting());
    }

    /** The UDP socket (for tests that change its settings); null before it is open. */
    public final DatagramChannel socket() {
        return socket;
    }

    /** Connections reset because handling one of their packets or timers threw. */
    public final long connectionFailures() {
        return connectionFailures.get();
    }

    /** Errors the socket reported other than "port unreachable". */
    public final long socketErrors() {
        return socketErrors.get();
    }

    /** How often a connection's datagrams waited in its core for the socket (for tests and statistics). */
    public final long socketWaits() {
        return socketWaits;
    }

    // ------------------------------------------------------------------ sending

    /** Sends one datagram (ownership passes); flushed at the end of the batch, or soon. */
    public final void send(ByteBuf packet, InetSocketAddress to) {
        if (socket == null || !socket.isActive()) {
            packet.release();
            return;
        }
        sender.add(packet, to);
        flushOwed();
    }

    /**
     * Sends bytes {@code offset} to {@code offset + length} of {@code whole}, which stays the caller's
     * (a connection's packet in its slab; the sender retains it once per run), as {@link #send}.
     */
    public final void sendPart(ByteBuf whole, int offset, int length, InetSocketAddress to) {
        if (socket == null || !socket.isActive()) {
            return;
        }
        sender.addPart(whole, offset, length, to);
        flushOwed();
    }

    private void flushOwed() {
        flushOwed = true;
        if (!inReadBatch && !flushScheduled) {
            flushScheduled = true;
            socket.eventLoop().execute(this::flushNow);
        }
    }

    /**
     * Whether the connections' datagrams may be collected now: the socket's outbound buffer is under its
     * high-water mark (a socket that is gone takes them to drop them).
     */
    public final boolean socketWritable() {
        return socket == null || !socket.isActive() || socket.isWritable();
    }

    /** {@code channel}'s datagrams stay in its core until the socket is writable again. */
    final void waitForSocket(EngineChannel<?, ?> channel) {
        if (waitingForSocket.add(channel)) {
            socketWaits++;
        }
    }

    private void socketWritabilityChanged() {
        if (waitingForSocket.isEmpty() || !socketWritable()) {
            return;
        }
        List<EngineChannel<?, ?>> waiting = new ArrayList<>(waitingForSocket);
        waitingForSocket.clear();
        for (EngineChannel<?, ?> channel : waiting) {
            if (!socketWritable()) {
                waitingForSocket.add(channel); // the socket filled up again: the rest wait on
                continue;
            }
            try {
                afterCall(channel);
            } catch (RuntimeException e) {
                contain(channel, e);
            }
        }
        flushNow();
    }

    private void flushNow() {
        flushScheduled = false;
        if (flushOwed && socket != null) {
            flushOwed = false;
            sender.drain();
            socket.flush();
        }
    }

    // ------------------------------------------------------------------ the call-then-collect rule

    /**
     * After any call into a connection, the one place its consequences are taken: collect what it
     * produced, re-arm its timer, forget it once it is over, flush sends (outside a read batch).
     */
    public final void afterCall(EngineChannel<?, ?> channel) {
        channel.collect();
        EngineConnection c = channel.connection;
        if (c != null) {
            if (c.isTerminated()) {
                forget(channel);
            } else {
                reschedule(channel, c);
            }
        }
        if (!inReadBatch) {
            flushNow();
        }
    }

    @SuppressWarnings("unchecked")
    private void forget(EngineChannel<?, ?> channel) {
        waitingForSocket.remove(channel);
        if (!unregister((Ch) channel)) {
            return; // forgotten already (evicted, or the socket closed)
        }
        channel.timer.stop();
        channel.forgotten();
        closeIfIdle();
    }

    /** Drops a connection without a word to its peer (a half-open one evicted for a newer): never the application's. */
    protected final void dropSilently(Ch channel) {
        EngineConnection c = channel.connection;
        if (!c.isTerminated()) {
            c.abort(now());
        }
        c.releaseUncollected();
        channel.timer.stop();
        channel.forgotten();
    }

    /** The listener closed: the socket closes once its last connection ended. On the event loop. */
    protected final void markAcceptorClosed() {
        acceptorClosed = true;
        closeIfIdle();
    }

    private void closeIfIdle() {
        if (connections().isEmpty() && (clientSocket || acceptorClosed) && socket != null && socket.isOpen()) {
            flushNow();
            socket.close();
        }
    }

    /** The socket closed: every connection on it is over; their buffers are released and their channels close. */
    private void abandonAll() {
        if (sender != null) {
            sender.discard();
        }
        waitingForSocket.clear();
        long now = now();
        for (Ch channel : new ArrayList<>(unregisterAll())) {
            channel.timer.stop();
            channel.socketClosed(now);
        }
    }

    private void reschedule(EngineChannel<?, ?> channel, EngineConnection c) {
        long deadline = c.nextDeadlineNanos();
        EngineTimer timer = channel.timer;
        if (timer.stopped) {
            return;
        }
        if (deadline == Long.MAX_VALUE) {
            if (timer.future != null) {
                timer.future.cancel(false);
                timer.future = null;
            }
            return;
        }
        if (timer.future != null && timer.deadline <= deadline) {
            return; // the pending wake-up comes first; it re-arms for the later deadline
        }
        if (timer.future != null) {
            timer.future.cancel(false);
        }
        timer.deadline = deadline;
        timer.future = socket.eventLoop().schedule(() -> fire(channel, timer), Math.max(0, deadline - now()), TimeUnit.NANOSECONDS);
    }

    private void fire(EngineChannel<?, ?> channel, EngineTimer timer) {
        timer.future = null;
        EngineConnection c = channel.connection;
        if (c == null || timer.stopped) {
            return;
        }
        try {
            c.onTimer(now());
            afterCall(channel);
        } catch (RuntimeException e) {
            contain(channel, e);
        }
    }

    /**
     * A connection's handling threw: that connection is reset and closed, counted and logged; the
     * endpoint, its socket and its other connections carry on.
     */
    private void contain(EngineChannel<?, ?> channel, RuntimeException e) {
        connectionFailures.incrementAndGet();
        LOG.debug("{} connection to {} failed while handling a packet or timer; resetting it", protocol, channel.remote, e);
        try {
            channel.failed(e);
            channel.collect();
        } catch (RuntimeException again) {
            LOG.debug("{} connection to {} failed again while being reset", protocol, channel.remote, again);
        }
        EngineConnection c = channel.connection;
        if (c != null) {
            c.releaseUncollected();
            forget(channel);
        }
        if (!inReadBatch) {
            flushNow();
        }
    }

    // ------------------------------------------------------------------ receiving

    /**
     * Hands a datagram of this socket's to {@code channel}. Its consequences are taken once for the whole read
     * batch, at its end ({@link #endOfReadBatch}): its sends leave only then anyway, and a collect and a timer
     * re-arm per datagram were a per-packet cost of the engine (issue 58).
     */
    protected final void deliver(Ch channel, ByteBuf datagram, InetSocketAddress from, long now) {
        try {
            if (!channel.inReadBatch) {
                channel.inReadBatch = true;
                readBatch.add(channel);
                channel.beginReadBatch();
            }
            channel.onDatagram(datagram, from, now);
            if (!inReadBatch) {
                afterCall(channel);
            }
        } catch (RuntimeException e) {
            contain(channel, e);
        }
    }

    /**
     * Hands {@code datagram} to {@code owner}, the socket of this listener's {@link SocketGroup} that routes
     * it: a retained duplicate is handled on the owner's event loop as if that socket had read it. False,
     * and nothing happens, when there is no other owner or the datagram was handed over to this socket
     * already (a datagram hops at most once); the caller keeps ownership either way.
     */
    protected final boolean handOver(SocketGroup<?> group, EngineEndpoint<?> owner, ByteBuf datagram, InetSocketAddress from) {
        if (owner == null || owner == this || handlingHandedOver || owner.socket == null) {
            return false;
        }
        ByteBuf copy = datagram.retainedDuplicate();
        try {
            owner.socket.eventLoop().execute(() -> owner.receiveHandedOver(copy, from));
        } catch (java.util.concurrent.RejectedExecutionException shutDown) {
            copy.release();
            return false;
        }
        group.countHandOver();
        return true;
    }

    private void receiveHandedOver(ByteBuf datagram, InetSocketAddress from) {
        if (!socket.isOpen()) {
            datagram.release();
            return;
        }
        handlingHandedOver = true;
        try {
            readAsIfReceived(datagram, from);
        } finally {
            handlingHandedOver = false;
        }
    }

    /** Handles {@code datagram} as if this socket had read it (a listener's other socket handed it over); ownership passes. */
    protected final void readAsIfReceived(ByteBuf datagram, InetSocketAddress from) {
        boolean nested = inReadBatch;
        inReadBatch = true;
        if (!nested) {
            datagramsOnClock = 0;
        }
        try {
            onDatagram(datagram, from, null);
        } finally {
            datagram.release();
            if (!nested) {
                endOfReadBatch();
            }
        }
    }

    /** Ends a batch of received datagrams: read-complete for every connection that got data, one flush. */
    private void endOfReadBatch() {
        for (int i = 0; i < readBatch.size(); i++) {
            EngineChannel<?, ?> channel = readBatch.get(i);
            channel.inReadBatch = false;
            try {
                channel.endOfReadBatch();
                afterCall(channel);
            } catch (RuntimeException e) {
                contain(channel, e);
            }
        }
        readBatch.clear();
        inReadBatch = false;
        flushNow();
    }

    private void portUnreachable() {
        for (EngineChannel<?, ?> channel : new ArrayList<>(connections())) {
            channel.portUnreachable();
            afterCall(channel);
        }
    }

    /** The socket's pipeline: hands datagrams to the endpoint. */
    private static final class Inbound extends ChannelInboundHandlerAdapter {
        private final EngineEndpoint<?> endpoint;

        Inbound(EngineEndpoint<?> endpoint) {
            this.endpoint = endpoint;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!endpoint.inReadBatch) {
                endpoint.inReadBatch = true;
                endpoint.datagramsOnClock = 0; // a new batch reads the clock afresh
            }
            try {
                if (msg instanceof DatagramPacket packet) {
                    InetSocketAddress from = packet.sender() != null ? packet.sender() : (InetSocketAddress) ctx.channel().remoteAddress();
                    endpoint.onDatagram(packet.content(), from, packet.recipient());
                } else if (msg instanceof ByteBuf buf) {
                    endpoint.onDatagram(buf, (InetSocketAddress) ctx.channel().remoteAddress(), null);
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            endpoint.endOfReadBatch();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            endpoint.socketWritabilityChanged();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (SendErrors.isPortUnreachable(cause)) {
                endpoint.portUnreachable();
                return;
            }
            // other socket errors are transient for UDP (e.g. ENOBUFS); the connections' timers recover
            endpoint.socketErrors.incrementAndGet();
            LOG.debug("{} socket {}: {}", endpoint.protocol, ctx.channel().localAddress(), cause.toString(), cause);
        }
    }
}
