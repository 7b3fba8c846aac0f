package io.ferry.transport.ledbat.channel;

import io.ferry.transport.udp.SegmentingSender;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.ferry.transport.ledbat.core.UtpConnection;
import io.ferry.transport.ledbat.endpoint.EndpointCore;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.concurrent.ScheduledFuture;


import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One UDP socket and the uTP connections it carries, demultiplexed by (remote address, connection id)
 * as BEP 29 prescribes. Everything runs on the socket's event loop: datagrams are routed to their
 * connection, new SYNs go to the listener, packets for unknown connections are answered with a RESET,
 * malformed datagrams are dropped and counted. Each connection's next deadline (retransmission, delayed
 * ACK, pacing, keep-alive) is one scheduled task on the loop.
 *
 * <p>Sends are batched: packets produced while a batch of received datagrams is processed are flushed
 * to the socket once, at the end of the batch.
 */
final class UtpEndpoint {

    /** Kernel socket buffers asked for; the kernel caps them at {@code net.core.[rw]mem_max}. */
    static final int SOCKET_BUFFER = 8 << 20;

    private static final InternalLogger LOG = InternalLoggerFactory.getInstance(UtpEndpoint.class);
    private static final java.security.SecureRandom SALTS = new java.security.SecureRandom();

    private final UtpTransport transport;
    private final boolean connectedSocket;
    /**
     * A SYN at the half-open limit is answered from the SYN cache, without a connection; the packet that
     * confirms the answer makes the connection, evicting the socket's oldest half-open one (see {@link EndpointCore}).
     */
    static final boolean SYN_CACHE = true;

    /** The routing decisions: connection table, admission, RESET limiter. */
    private final EndpointCore<UtpSocketChannel> core = new EndpointCore<>(UtpSocketChannel::connection,
            UtpSocketChannel::remote, SALTS.nextLong(), UtpSettings.DEFAULT_RESET_RATE, this::evicted, SYN_CACHE);
    private final List<UtpSocketChannel> readBatch = new ArrayList<>();
    private final AtomicLong connectionFailures = new AtomicLong();
    private final AtomicLong socketErrors = new AtomicLong();

    private DatagramChannel socket;
    private SegmentingSender sender;
    private volatile UtpServerChannel acceptor;
    private boolean inReadBatch;
    private boolean flushOwed;
    private boolean flushScheduled;
    private boolean acceptorClosed;
    /**
     * Connections whose datagrams wait in their core because the socket was not writable when they were
     * collected; collected again, in the order they began to wait, when it is.
     */
    private final java.util.LinkedHashSet<UtpSocketChannel> waitingForSocket = new java.util.LinkedHashSet<>();
    private long socketWaits;
    /** A listener socket on the wildcard address that hands new connections to per-address sockets ({@link UtpServerChannel#acceptOnDialedAddress}). */
    private boolean wildcardListener;

    private UtpEndpoint(UtpTransport transport, boolean connectedSocket) {
        this.transport = transport;
        this.connectedSocket = connectedSocket;
    }

    /**
     * Opens a socket connected to {@code remote}, for one client connection (so ICMP errors reach it), bound
     * to {@code local} where the application bound the channel first (null: the system's choice).
     */
    static ChannelFuture openClient(UtpTransport transport, EventLoop loop, InetSocketAddress remote, InetSocketAddress local,
                                    int packetSize) {
        UtpEndpoint endpoint = new UtpEndpoint(transport, true);
        return endpoint.bootstrap(loop, packetSize).connect(remote, local);
    }

    /**
     * Opens a socket bound to {@code local}, for a listener and every connection that arrives on it;
     * {@code sharedPort} lets the listener's other sockets bind the same address ({@code SO_REUSEPORT}).
     */
    static ChannelFuture openServer(UtpTransport transport, EventLoop loop, InetSocketAddress local, int packetSize,
                                    boolean sharedPort) {
        UtpEndpoint endpoint = new UtpEndpoint(transport, false);
        Bootstrap bootstrap = endpoint.bootstrap(loop, packetSize);
        if (sharedPort) {
            transport.io().allowSharedPort(bootstrap);
        }
        if (local.getAddress().isAnyLocalAddress() && transport.io().learnsDialedAddress()) {
            endpoint.wildcardListener = true;
            transport.io().configureWildcardListener(bootstrap);
        }
        return bootstrap.bind(local);
    }

    /**
     * Opens a listener socket bound to one local address ({@code dialed}) on the port of the listener's
     * wildcard sockets: the kernel then delivers that address's datagrams to it, and what it sends leaves
     * from that address.
     */
    static ChannelFuture openDialedAddress(UtpTransport transport, EventLoop loop, InetSocketAddress dialed, int packetSize) {
        UtpEndpoint endpoint = new UtpEndpoint(transport, false);
        Bootstrap bootstrap = endpoint.bootstrap(loop, packetSize);
        transport.io().configureAddressSocket(bootstrap);
        return bootstrap.bind(dialed);
    }


    /** The endpoint that owns a socket opened by {@link #openClient} or {@link #openServer}. */
    static UtpEndpoint of(io.netty.channel.Channel socket) {
        return ((Inbound) socket.pipeline().get(Inbound.NAME)).endpoint();
    }

    private Bootstrap bootstrap(EventLoop loop, int packetSize) {
        Bootstrap bootstrap = new Bootstrap().group(loop).channel(transport.io().datagramChannelClass())
                .option(ChannelOption.SO_RCVBUF, SOCKET_BUFFER)
                .option(ChannelOption.SO_SNDBUF, SOCKET_BUFFER)
                .option(ChannelOption.MAX_MESSAGES_PER_READ, 64)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new io.netty.channel.WriteBufferWaterMark(4 << 20, 8 << 20))
                .handler(new io.netty.channel.ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        socket = ch;
                        sender = new SegmentingSender(ch, connectedSocket, transport.io().segmentedSends());
                        ch.closeFuture().addListener(f -> abandonAll());
                        ch.pipeline().addLast(Inbound.NAME, new Inbound(UtpEndpoint.this));
                    }
                });
        transport.io().configureReads(bootstrap, packetSize);
        return bootstrap;
    }

    // ------------------------------------------------------------------ queries

    InetSocketAddress localAddress() {
        return socket == null ? null : socket.localAddress();
    }

    String implementation() {
        return transport.io().name() + transport.io().batching(sender != null && sender.isSegmenting());
    }

    /** Datagrams dropped because they were not valid uTP packets. */
    long malformedDropped() {
        return core.malformedDropped();
    }

    /** RESETs not sent because the socket had sent its {@link UtpChannelOption#RESET_RATE} in the last second. */
    long resetsSuppressed() {
        return core.resetsSuppressed();
    }

    /** Evicted handshakes brought back by the initiator's next packet. */
    long revivedHandshakes() {
        return core.revivedHandshakes();
    }

    long synCacheAnswers() {
        return core.synCacheAnswers();
    }

    /** Connections reset because handling one of their packets or timers threw. */
    long connectionFailures() {
        return connectionFailures.get();
    }

    /** Errors the socket reported other than "port unreachable". */
    long socketErrors() {
        return socketErrors.get();
    }

    /** Valid packets for connections this endpoint does not have (answered with RESET). */
    long unknownConnectionPackets() {
        return core.unknownConnectionPackets();
    }


    /**
     * Whether a connection is still delivering data or exchanging FINs; connections that merely linger
     * to re-acknowledge a late FIN (like TCP's TIME_WAIT) do not count. Call on the event loop.
     */
    boolean hasConnectionsInProgress() {
        for (UtpSocketChannel channel : core.connections()) {
            UtpConnection c = channel.connection();
            if (c != null && c.state() != io.ferry.transport.ledbat.core.ConnectionState.LINGERING && !c.isTerminated()) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ connections

    /**
     * From now on new SYNs go to {@code acceptor}, within its admission limits. Any thread, and at once:
     * a client may dial as soon as the listener's bind completed, before this socket's loop runs a task.
     */
    void setAcceptor(UtpServerChannel acceptor) {
        this.acceptor = acceptor;
        core.startAccepting(acceptor.admission(), acceptor.resetRate(), acceptor::synAnswer);
    }

    /**
     * The listener closed: accept nothing more, and close the socket once the last connection ends.
     * May be called from any thread.
     */
    void acceptorClosed() {
        core.stopAccepting(); // at once: a SYN read before the loop runs the rest is refused, not accepted
        if (socket != null && !socket.eventLoop().inEventLoop()) {
            socket.eventLoop().execute(this::acceptorClosed);
            return;
        }
        acceptorClosed = true;
        closeIfIdle();
    }

    /** The event loop of this endpoint's socket, on which its connections run. */
    EventLoop loop() {
        return socket.eventLoop();
    }

    /**
     * The time every call into this endpoint's connections is given: its event loop's {@link
     * io.netty.util.concurrent.Ticker}, the clock the loop's own timers run on (a loop with a mock
     * ticker drives the connections in virtual time). The only clock the uTP channel reads.
     */
    long now() {
        return socket.eventLoop().ticker().nanoTime();
    }

    /** A connection id not in use towards {@code remote} (for both ids of the pair). */
    int newConnectionId(InetSocketAddress remote) {
        return core.newConnectionId(remote, () -> ThreadLocalRandom.current().nextInt(1 << 16));
    }

    /** A connection this side opened: its packets are routed to it from now on. */
    void register(UtpSocketChannel channel) {
        core.register(channel);
    }

    /** An accepted connection's initiator proved its address. */
    void promoted(UtpSocketChannel channel) {
        core.promoted(channel);
    }

    /**
     * Whether the connections' datagrams may be collected now: the socket's outbound buffer is under its
     * high-water mark (a socket that is gone takes them to drop them).
     */
    boolean socketWritable() {
        return socket == null || !socket.isActive() || socket.isWritable();
    }

    /** {@code channel}'s datagrams stay in its core until the socket is writable again. */
    void waitForSocket(UtpSocketChannel channel) {
        if (waitingForSocket.add(channel)) {
            socketWaits++;
        }
    }

    /** The UDP socket (for tests that change its settings); null before it is open. */
    DatagramChannel socket() {
        return socket;
    }

    /** How often a connection's datagrams waited in its core for the socket (for tests and statistics). */
    long socketWaits() {
        return socketWaits;
    }

    /** The socket's writability changed: if it can take datagrams, the connections that wait are collected, oldest first. */
    private void socketWritabilityChanged() {
        if (waitingForSocket.isEmpty() || !socketWritable()) {
            return;
        }
        List<UtpSocketChannel> waiting = new ArrayList<>(waitingForSocket);
        waitingForSocket.clear();
        for (UtpSocketChannel channel : waiting) {
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

    /** Sends one packet (ownership passes) and arranges for it to be flushed soon. */
    void send(ByteBuf packet, InetSocketAddress to) {
        if (socket == null || !socket.isActive()) {
            packet.release();
            return;
        }
        sender.add(packet, to);
        flushOwed = true;
        if (!inReadBatch && !flushScheduled) {
            flushScheduled = true;
            socket.eventLoop().execute(this::flushNow);
        }
    }

    /**
     * After any call into a connection: collect what it produced, re-arm its timer, forget it once it
     * is over, flush sends.
     */
    void afterCall(UtpSocketChannel channel) {
        channel.collect();
        UtpConnection c = channel.connection();
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

    private void forget(UtpSocketChannel channel) {
        waitingForSocket.remove(channel);
        if (!core.forget(channel)) {
            return; // forgotten already (evicted, or the socket closed)
        }
        channel.timer.stop();
        channel.forgotten();
        closeIfIdle();
    }

    private void closeIfIdle() {
        if (core.isEmpty() && (connectedSocket || acceptorClosed) && socket != null && socket.isOpen()) {
            flushNow();
            socket.close();
        }
    }

    /**
     * The socket closed: every connection it still carried is over. Their protocol state (and the
     * buffers it holds for retransmission) is released, and their channels close.
     */
    private void abandonAll() {
        if (sender != null) {
            sender.discard();
        }
        waitingForSocket.clear();
        for (UtpSocketChannel channel : core.forgetAll()) {
            UtpConnection c = channel.connection();
            if (c != null && !c.isTerminated()) {
                c.abort(now());
            }
            if (c != null) {
                c.releaseUncollected(); // the socket is gone: the RESET cannot leave
            }
            channel.timer.stop();
            boolean halfOpen = channel.isAwaitingConfirmation();
            channel.forgotten();
            if (!halfOpen && channel.isOpen() && channel.isRegistered()) {
                channel.unsafe().close(channel.unsafe().voidPromise());
            }
        }
    }

    /**
     * A half-open connection made room for a newer SYN ({@link EndpointCore}): it ends without a word,
     * since its initiator never proved its address, and it was never the application's.
     */
    private void evicted(UtpSocketChannel channel) {
        UtpConnection c = channel.connection();
        if (!c.isTerminated()) {
            c.abort(now());
        }
        c.releaseUncollected(); // no RESET to an address that may be spoofed
        channel.timer.stop();
        channel.forgotten();
    }

    private void reschedule(UtpSocketChannel channel, UtpConnection c) {
        long deadline = c.nextDeadlineNanos();
        Timer timer = channel.timer;
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
            return; // the pending timer fires first; it re-arms for the later deadline
        }
        if (timer.future != null) {
            timer.future.cancel(false);
        }
        timer.deadline = deadline;
        long delay = Math.max(0, deadline - now());
        timer.future = socket.eventLoop().schedule(() -> fire(channel, timer), delay, TimeUnit.NANOSECONDS);
    }

    private void fire(UtpSocketChannel channel, Timer timer) {
        timer.future = null;
        UtpConnection c = channel.connection();
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
    private void contain(UtpSocketChannel channel, RuntimeException e) {
        connectionFailures.incrementAndGet();
        LOG.debug("uTP connection to {} failed while handling a packet or timer; resetting it", channel.remote(), e);
        try {
            channel.failed(e);
            channel.collect();
        } catch (RuntimeException again) {
            LOG.debug("uTP connection to {} failed again while being reset", channel.remote(), again);
        }
        UtpConnection c = channel.connection();
        if (c != null) {
            c.releaseUncollected();
            forget(channel);
        }
        if (!inReadBatch) {
            flushNow();
        }
    }

    private void flushNow() {
        flushScheduled = false;
        if (flushOwed && socket != null) {
            flushOwed = false;
            sender.drain();
            socket.flush();
        }
    }

    // ------------------------------------------------------------------ receiving

    /**
     * A SYN that arrived on a wildcard socket, handed over by the listener to this socket bound to the
     * address it was sent to: processed as if this socket had read it. Takes ownership of {@code syn}.
     */
    void handOver(ByteBuf syn, InetSocketAddress sender) {
        boolean nested = inReadBatch;
        inReadBatch = true;
        try {
            onDatagram(syn, sender, null);
        } finally {
            syn.release();
            if (!nested) {
                endOfReadBatch();
            }
        }
    }

    private void onDatagram(ByteBuf datagram, InetSocketAddress sender, InetSocketAddress recipient) {
        long now = now();
        switch (core.handle(datagram, sender, now)) {
            case ROUTE -> deliver(core.target(), datagram, now);
            case ACCEPT -> accept(datagram, sender, recipient, now);
            case RESPOND -> send(core.takeResponse(), sender);
            case DROP -> {
                // counted by the core
            }
        }
    }

    /**
     * An admitted SYN: answered from the socket bound to the address the peer dialed, or accepted here.
     * A revived handshake (evicted, then confirmed by {@code datagram}) is accepted here and gets the datagram.
     */
    private void accept(ByteBuf datagram, InetSocketAddress sender, InetSocketAddress recipient, long now) {
        UtpServerChannel listener = acceptor;
        EndpointCore.Handshake handshake = core.handshake();
        if (!handshake.revived() && wildcardListener && recipient != null && !recipient.getAddress().isAnyLocalAddress()
                && listener.acceptOnDialedAddress(this, datagram, sender, recipient)) {
            core.withdraw(); // that socket admits it again
            return;
        }
        UtpSocketChannel child = listener.accept(this, handshake, sender, now);
        if (child == null) {
            core.withdraw();
            return;
        }
        core.accepted(child);
        if (handshake.revived()) {
            deliver(child, datagram, now); // its confirmation
        } else {
            afterCall(child); // the answer to the SYN leaves
        }
    }

    private void deliver(UtpSocketChannel channel, ByteBuf datagram, long now) {
        try {
            if (!channel.inReadBatch) {
                channel.inReadBatch = true;
                readBatch.add(channel);
                channel.beginReadBatch();
            }
            channel.onPacket(datagram, now);
            afterCall(channel);
        } catch (RuntimeException e) {
            contain(channel, e);
        }
    }

    /** Ends a batch of received datagrams: read-complete for every connection that got data, one flush. */
    private void endOfReadBatch() {
        for (int i = 0; i < readBatch.size(); i++) {
            UtpSocketChannel channel = readBatch.get(i);
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
        for (UtpSocketChannel channel : new ArrayList<>(core.connections())) {
            channel.portUnreachable();
            afterCall(channel);
        }
    }

    /** A connection's one pending wake-up on the event loop; lives in its channel. */
    static final class Timer {
        private ScheduledFuture<?> future;
        private long deadline;
        private boolean stopped;

        /** Cancels the pending wake-up for good: the connection is over. */
        void stop() {
            stopped = true;
            if (future != null) {
                future.cancel(false);
                future = null;
            }
        }
    }

    /** The socket's pipeline: hands datagrams to the endpoint. */
    private static final class Inbound extends ChannelInboundHandlerAdapter {
        static final String NAME = "ferry-utp-endpoint";
        private final UtpEndpoint endpoint;

        Inbound(UtpEndpoint endpoint) {
            this.endpoint = endpoint;
        }

        UtpEndpoint endpoint() {
            return endpoint;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            endpoint.inReadBatch = true;
            try {
                if (msg instanceof DatagramPacket) {
                    DatagramPacket packet = (DatagramPacket) msg;
                    endpoint.onDatagram(packet.content(), packet.sender() != null ? packet.sender()
                            : (InetSocketAddress) ctx.channel().remoteAddress(), packet.recipient());
                } else if (msg instanceof ByteBuf) {
                    endpoint.onDatagram((ByteBuf) msg, (InetSocketAddress) ctx.channel().remoteAddress(), null);
                }
            } finally {
                io.netty.util.ReferenceCountUtil.release(msg);
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
            if (cause instanceof PortUnreachableException) {
                endpoint.portUnreachable();
                return;
            }
            // Other socket errors are transient for UDP (e.g. ENOBUFS); the connections' timers recover.
            endpoint.socketErrors.incrementAndGet();
            LOG.debug("uTP socket {}: {}", ctx.channel().localAddress(), cause.toString(), cause);
        }
    }
}
