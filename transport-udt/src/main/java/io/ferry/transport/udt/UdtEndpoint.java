package io.ferry.transport.udt;

import io.ferry.transport.udp.SegmentingSender;
import io.ferry.transport.udt.proto.core.UdtConnection;
import io.ferry.transport.udt.proto.core.UdtListener;
import io.ferry.transport.udt.proto.wire.Handshake;
import io.ferry.transport.udt.proto.wire.UdtPacket;
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
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One UDP socket and the UDT connections it carries, on the socket's event loop. UDT addresses every
 * packet to a socket id: datagrams for a known id go to that connection (from its peer's address
 * only); handshakes addressed to id 0 go to the listener ({@link UdtListener}: cookie, then a new
 * connection), or to the connection a repeated request belongs to, or, on a client's own socket, to its
 * one connection (a rendezvous peer's requests). Each connection's next deadline is one scheduled task.
 * Packets produced while a batch of received datagrams is processed leave in one flush at its end,
 * gathered into GSO runs where the kernel can ({@link SegmentingSender}).
 */
final class UdtEndpoint {

    private static final InternalLogger LOG = InternalLoggerFactory.getInstance(UdtEndpoint.class);
    private static final SecureRandom SECRETS = new SecureRandom();

    private final UdtTransport transport;
    private final boolean clientSocket;
    private final UdtSettings settings;
    private final Map<Integer, UdtSocketChannel> byId = new HashMap<>();
    /** Accepted connections by their peer's address and socket id: a repeated request is answered by its connection. */
    private final Map<PeerKey, UdtSocketChannel> byPeer = new HashMap<>();
    private final List<UdtSocketChannel> readBatch = new ArrayList<>();
    private final AtomicLong unroutable = new AtomicLong();
    private final AtomicLong connectionFailures = new AtomicLong();
    private final AtomicLong socketErrors = new AtomicLong();
    private DatagramChannel socket;
    private SegmentingSender sender;
    private volatile UdtServerChannel acceptor;
    private UdtListener listener;
    private boolean acceptorClosed;
    private boolean inReadBatch;
    private boolean flushOwed;
    private boolean flushScheduled;

    private record PeerKey(InetSocketAddress address, int socketId) {
    }

    private UdtEndpoint(UdtTransport transport, UdtSettings settings, boolean clientSocket) {
        this.transport = transport;
        this.settings = settings;
        this.clientSocket = clientSocket;
    }

    /**
     * Opens a client's own socket: connected to {@code remote} (so an ICMP port-unreachable refuses the
     * connect at once), except for a rendezvous, whose peer may answer from elsewhere first; bound to
     * {@code local} where given.
     */
    static ChannelFuture openClient(UdtTransport transport, UdtSettings settings, EventLoop loop, InetSocketAddress remote,
                                    InetSocketAddress local) {
        UdtEndpoint endpoint = new UdtEndpoint(transport, settings, true);
        Bootstrap bootstrap = endpoint.bootstrap(loop);
        if (settings.rendezvous) {
            bootstrap.option(ChannelOption.SO_REUSEADDR, settings.reuseAddress);
            return bootstrap.bind(local);
        }
        return local == null ? bootstrap.connect(remote) : bootstrap.connect(remote, local);
    }

    /** Opens one of a listener's sockets on {@code local}; {@code sharedPort}: bound with {@code SO_REUSEPORT} beside the others. */
    static ChannelFuture openServer(UdtTransport transport, UdtSettings settings, EventLoop loop, InetSocketAddress local,
                                    boolean sharedPort) {
        UdtEndpoint endpoint = new UdtEndpoint(transport, settings, false);
        Bootstrap bootstrap = endpoint.bootstrap(loop);
        if (sharedPort) {
            transport.io().allowSharedPort(bootstrap);
        }
        return bootstrap.bind(local);
    }

    /** The endpoint that owns a socket opened here. */
    static UdtEndpoint of(io.netty.channel.Channel socket) {
        return ((Inbound) socket.pipeline().get(Inbound.NAME)).endpoint;
    }

    private Bootstrap bootstrap(EventLoop loop) {
        Bootstrap bootstrap = new Bootstrap().group(loop).channel(transport.io().datagramChannelClass())
                .option(ChannelOption.SO_RCVBUF, settings.udpReceiveBuffer)
                .option(ChannelOption.SO_SNDBUF, settings.udpSendBuffer)
                .option(ChannelOption.MAX_MESSAGES_PER_READ, 64)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new io.netty.channel.WriteBufferWaterMark(4 << 20, 8 << 20))
                .handler(new io.netty.channel.ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        socket = ch;
                        sender = new SegmentingSender(ch, false, transport.io().segmentedSends());
                        ch.closeFuture().addListener(f -> abandonAll());
                        ch.pipeline().addLast(Inbound.NAME, new Inbound(UdtEndpoint.this));
                    }
                });
        transport.io().configureReads(bootstrap, settings.mss);
        return bootstrap;
    }

    // ------------------------------------------------------------------ queries

    InetSocketAddress localAddress() {
        return socket == null ? null : socket.localAddress();
    }

    EventLoop loop() {
        return socket.eventLoop();
    }

    /** The loop's clock, the only one the UDT channels read (see {@code UtpEndpoint.now}). */
    long now() {
        return socket.eventLoop().ticker().nanoTime();
    }

    String implementation() {
        return transport.io().name() + transport.io().batching(sender != null && sender.isSegmenting());
    }

    long unroutable() {
        return unroutable.get();
    }

    long connectionFailures() {
        return connectionFailures.get();
    }

    long socketErrors() {
        return socketErrors.get();
    }

    /** Whether any connection still moves data (not merely closed). Event loop. */
    boolean hasConnectionsInProgress() {
        for (UdtSocketChannel c : byId.values()) {
            UdtConnection conn = c.connection();
            if (conn != null && conn.phase() != UdtConnection.Phase.CLOSED) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ connections

    /** New requests go to {@code server} from now on. Any thread. */
    void setAcceptor(UdtServerChannel server, UdtSettings childSettings) {
        byte[] secret = new byte[32];
        SECRETS.nextBytes(secret);
        loop().execute(() -> {
            listener = new UdtListener(childSettings.protocol(isIpv6(), server.config().getAllocator()), secret, now());
            acceptor = server;
        });
    }

    /** The listener closed: refuse new requests, close the socket after the last connection. Any thread. */
    void acceptorClosed() {
        if (socket != null && !socket.eventLoop().inEventLoop()) {
            socket.eventLoop().execute(this::acceptorClosed);
            return;
        }
        acceptorClosed = true;
        if (listener != null) {
            listener.setAccepting(false);
        }
        closeIfIdle();
    }

    private boolean isIpv6() {
        InetSocketAddress local = localAddress();
        return local != null && local.getAddress() instanceof java.net.Inet6Address;
    }

    /** A socket id not in use on this socket. */
    int newSocketId() {
        for (;;) {
            int id = 1 + ThreadLocalRandom.current().nextInt(Integer.MAX_VALUE - 1);
            if (!byId.containsKey(id)) {
                return id;
            }
        }
    }

    /** A connection this side opened: its packets are routed to it from now on. */
    void register(UdtSocketChannel channel) {
        byId.put(channel.connection().socketId(), channel);
    }

    /** Sends one datagram (ownership passes); flushed at the end of the batch or soon. */
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

    /** After any call into a connection: collect its output, re-arm its timer, forget it once closed. */
    void afterCall(UdtSocketChannel channel) {
        channel.collect();
        UdtConnection c = channel.connection();
        if (c != null) {
            if (c.phase() == UdtConnection.Phase.CLOSED) {
                forget(channel);
            } else {
                reschedule(channel, c);
            }
        }
        if (!inReadBatch) {
            flushNow();
        }
    }

    private void forget(UdtSocketChannel channel) {
        UdtConnection c = channel.connection();
        if (byId.remove(c.socketId(), channel)) {
            byPeer.values().remove(channel);
            channel.timer.stop();
            closeIfIdle();
        }
    }

    private void closeIfIdle() {
        if (byId.isEmpty() && (clientSocket || acceptorClosed) && socket != null && socket.isOpen()) {
            flushNow();
            socket.close();
        }
    }

    /** The socket closed: every connection on it is over; their buffers are released and their channels close. */
    private void abandonAll() {
        if (sender != null) {
            sender.discard();
        }
        List<UdtSocketChannel> all = new ArrayList<>(byId.values());
        byId.clear();
        byPeer.clear();
        for (UdtSocketChannel channel : all) {
            channel.timer.stop();
            channel.socketClosed();
        }
    }

    private void reschedule(UdtSocketChannel channel, UdtConnection c) {
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
            return;
        }
        if (timer.future != null) {
            timer.future.cancel(false);
        }
        timer.deadline = deadline;
        timer.future = socket.eventLoop().schedule(() -> fire(channel, timer), Math.max(0, deadline - now()), TimeUnit.NANOSECONDS);
    }

    private void fire(UdtSocketChannel channel, Timer timer) {
        timer.future = null;
        UdtConnection c = channel.connection();
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

    /** A connection's handling threw: it is reset and closed; the socket and its other connections carry on. */
    private void contain(UdtSocketChannel channel, RuntimeException e) {
        connectionFailures.incrementAndGet();
        LOG.debug("UDT connection to {} failed while handling a packet or timer; resetting it", channel.remote(), e);
        try {
            channel.failed(e);
        } catch (RuntimeException again) {
            LOG.debug("UDT connection to {} failed again while being reset", channel.remote(), again);
        }
        UdtConnection c = channel.connection();
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

    private void onDatagram(ByteBuf datagram, InetSocketAddress from) {
        if (datagram.readableBytes() < UdtPacket.HEADER_BYTES) {
            unroutable.incrementAndGet();
            return;
        }
        int destination = UdtPacket.destination(datagram);
        if (destination != 0) {
            UdtSocketChannel channel = byId.get(destination);
            if (channel != null && channel.accepts(from)) {
                deliver(channel, datagram, from);
            } else {
                unroutable.incrementAndGet();
            }
            return;
        }
        if (!UdtPacket.isControl(datagram) || UdtPacket.controlType(datagram) != UdtPacket.HANDSHAKE
                || datagram.readableBytes() < UdtPacket.HEADER_BYTES + Handshake.BYTES) {
            unroutable.incrementAndGet();
            return;
        }
        if (clientSocket) {
            for (UdtSocketChannel channel : byId.values()) {
                if (channel.accepts(from)) {
                    deliver(channel, datagram, from); // a rendezvous peer's request, or a listener's answer to an id-0 probe
                    return;
                }
            }
            unroutable.incrementAndGet();
            return;
        }
        int peerId = datagram.getInt(datagram.readerIndex() + UdtPacket.HEADER_BYTES + 24);
        UdtSocketChannel existing = byPeer.get(new PeerKey(from, peerId));
        if (existing != null) {
            deliver(existing, datagram, from); // a repeated request: its connection answers again
            return;
        }
        accept(datagram, from);
    }

    private void accept(ByteBuf datagram, InetSocketAddress from) {
        UdtListener l = listener;
        UdtServerChannel server = acceptor;
        if (l == null || server == null) {
            unroutable.incrementAndGet();
            return;
        }
        long now = now();
        UdtListener.Answer answer = l.onHandshake(datagram, from, now);
        if (answer.reply() != null) {
            send(answer.reply(), from);
        }
        Handshake request = answer.accept();
        if (request == null) {
            return;
        }
        UdtSocketChannel child = server.accept(this, from, request, now);
        if (child == null) {
            return;
        }
        byId.put(child.connection().socketId(), child);
        byPeer.put(new PeerKey(from, request.socketId()), child);
        afterCall(child); // the response leaves, the application gets the connection
    }

    private void deliver(UdtSocketChannel channel, ByteBuf datagram, InetSocketAddress from) {
        try {
            if (!channel.inReadBatch) {
                channel.inReadBatch = true;
                readBatch.add(channel);
            }
            channel.onDatagram(datagram, from, now());
            afterCall(channel);
        } catch (RuntimeException e) {
            contain(channel, e);
        }
    }

    private void endOfReadBatch() {
        for (int i = 0; i < readBatch.size(); i++) {
            UdtSocketChannel channel = readBatch.get(i);
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
        for (UdtSocketChannel channel : new ArrayList<>(byId.values())) {
            channel.portUnreachable();
            afterCall(channel);
        }
    }

    /** A connection's one pending wake-up; lives in its channel. */
    static final class Timer {
        private ScheduledFuture<?> future;
        private long deadline;
        private boolean stopped;

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
        static final String NAME = "ferry-udt-endpoint";
        private final UdtEndpoint endpoint;

        Inbound(UdtEndpoint endpoint) {
            this.endpoint = endpoint;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            endpoint.inReadBatch = true;
            try {
                if (msg instanceof DatagramPacket packet) {
                    InetSocketAddress from = packet.sender() != null ? packet.sender() : (InetSocketAddress) ctx.channel().remoteAddress();
                    endpoint.onDatagram(packet.content(), from);
                } else if (msg instanceof ByteBuf buf) {
                    endpoint.onDatagram(buf, (InetSocketAddress) ctx.channel().remoteAddress());
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
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof PortUnreachableException) {
                endpoint.portUnreachable();
                return;
            }
            endpoint.socketErrors.incrementAndGet();
            LOG.debug("UDT socket {}: {}", ctx.channel().localAddress(), cause.toString(), cause);
        }
    }
}
