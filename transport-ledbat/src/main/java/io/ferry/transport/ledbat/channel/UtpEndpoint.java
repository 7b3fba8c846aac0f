package io.ferry.transport.ledbat.channel;

import io.ferry.transport.ledbat.core.ConnectionState;
import io.ferry.transport.ledbat.core.UtpConnection;
import io.ferry.transport.udp.engine.SocketGroup;
import io.ferry.transport.ledbat.endpoint.EndpointCore;
import io.ferry.transport.ledbat.wire.PacketReader;
import io.ferry.transport.udp.engine.EngineEndpoint;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;

import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.Collection;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One UDP socket and the uTP connections it carries, demultiplexed by (remote address, connection id)
 * as BEP 29 prescribes ({@link EndpointCore}): datagrams are routed to their connection, new SYNs go to
 * the listener, packets for unknown connections are answered with a RESET, malformed datagrams are
 * dropped and counted. The engine's driver loop ({@link EngineEndpoint}) does the rest: timers, batched
 * sends, the socket's backpressure, containment.
 */
final class UtpEndpoint extends EngineEndpoint<UtpSocketChannel> {

    /** Kernel socket buffers asked for; the kernel caps them at {@code net.core.[rw]mem_max}. */
    static final int SOCKET_BUFFER = 8 << 20;

    private static final SecureRandom SALTS = new SecureRandom();

    /**
     * A SYN at the half-open limit is answered from the SYN cache, without a connection; the packet that
     * confirms the answer makes the connection, evicting the socket's oldest half-open one (see {@link EndpointCore}).
     */
    static final boolean SYN_CACHE = true;

    /** The routing decisions: connection table, admission, RESET limiter. */
    private final EndpointCore<UtpSocketChannel> core = new EndpointCore<>(UtpSocketChannel::connection,
            UtpSocketChannel::remote, SALTS.nextLong(), UtpSettings.DEFAULT_RESET_RATE, this::evicted, SYN_CACHE);
    private volatile UtpServerChannel acceptor;
    /** The listener's sockets and which routes each accepted connection; null on a client's socket. */
    private volatile SocketGroup<Object> group;
    /** A listener socket on the wildcard address that hands new connections to per-address sockets ({@link UtpServerChannel#acceptOnDialedAddress}). */
    private boolean wildcardListener;

    private UtpEndpoint(UtpTransport transport, boolean connectedSocket) {
        super(transport.io(), "uTP", connectedSocket);
    }

    /**
     * Opens a socket connected to {@code remote}, for one client connection (so ICMP errors reach it), bound
     * to {@code local} where the application bound the channel first (null: the system's choice).
     */
    static ChannelFuture openClient(UtpTransport transport, EventLoop loop, InetSocketAddress remote, InetSocketAddress local,
                                    int packetSize) {
        UtpEndpoint endpoint = new UtpEndpoint(transport, true);
        return endpoint.bootstrap(loop, packetSize, true).connect(remote, local);
    }

    /**
     * Opens a socket bound to {@code local}, for a listener and every connection that arrives on it;
     * {@code sharedPort} lets the listener's other sockets bind the same address ({@code SO_REUSEPORT}).
     */
    static ChannelFuture openServer(UtpTransport transport, EventLoop loop, InetSocketAddress local, int packetSize,
                                    boolean sharedPort) {
        UtpEndpoint endpoint = new UtpEndpoint(transport, false);
        Bootstrap bootstrap = endpoint.bootstrap(loop, packetSize, false);
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
        Bootstrap bootstrap = endpoint.bootstrap(loop, packetSize, false);
        transport.io().configureAddressSocket(bootstrap);
        return bootstrap.bind(dialed);
    }

    /** The endpoint that owns a socket opened by {@link #openClient} or {@link #openServer}. */
    static UtpEndpoint of(io.netty.channel.Channel socket) {
        return of(socket, UtpEndpoint.class);
    }

    private Bootstrap bootstrap(EventLoop loop, int packetSize, boolean connectedSocket) {
        return bootstrap(loop, packetSize, SOCKET_BUFFER, SOCKET_BUFFER, connectedSocket);
    }

    // ------------------------------------------------------------------ queries

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
            if (c != null && c.state() != ConnectionState.TIME_WAIT && !c.isTerminated()) {
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
        SocketGroup<Object> sockets = acceptor.socketGroup();
        this.group = sockets;
        core.siblings((from, id) -> {
            EngineEndpoint<?> owner = sockets.owner(new RouteKey(from, id));
            return owner != null && owner != this;
        });
        core.startAccepting(acceptor.admission(), acceptor.resetRate(), acceptor::synAnswer);
    }

    /** What a listener's sockets route an accepted connection by, in their {@link SocketGroup}. */
    private record RouteKey(InetSocketAddress peer, int recvId) {
    }

    private RouteKey keyOf(UtpSocketChannel channel) {
        return new RouteKey(channel.remote(), channel.connection().ids().recvId());
    }

    /**
     * The listener closed: accept nothing more, and close the socket once the last connection ends.
     * May be called from any thread.
     */
    void acceptorClosed() {
        core.stopAccepting(); // at once: a SYN read before the loop runs the rest is refused, not accepted
        if (socket() != null && !socket().eventLoop().inEventLoop()) {
            socket().eventLoop().execute(this::acceptorClosed);
            return;
        }
        markAcceptorClosed();
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

    @Override
    protected boolean unregister(UtpSocketChannel channel) {
        release(channel);
        return core.forget(channel);
    }

    @Override
    protected Collection<UtpSocketChannel> unregisterAll() {
        Collection<UtpSocketChannel> all = core.forgetAll();
        all.forEach(this::release);
        return all;
    }

    /** {@code channel} is routed here no more (over, or evicted half-open). */
    private void release(UtpSocketChannel channel) {
        SocketGroup<Object> sockets = group;
        if (sockets != null && channel.connection() != null) {
            sockets.release(keyOf(channel), this);
        }
    }

    private void evicted(UtpSocketChannel channel) {
        release(channel);
        dropSilently(channel);
    }

    @Override
    protected Collection<UtpSocketChannel> connections() {
        return core.connections();
    }

    // ------------------------------------------------------------------ receiving

    /**
     * A SYN that arrived on a wildcard socket, handed over by the listener to this socket bound to the
     * address it was sent to: processed as if this socket had read it. Takes ownership of {@code syn}.
     */
    void handOver(ByteBuf syn, InetSocketAddress sender) {
        readAsIfReceived(syn, sender);
    }

    /** The header of the datagram being routed, parsed once by the core, for its connection ({@link UtpSocketChannel}). */
    PacketReader parsed() {
        return core.parsed();
    }

    @Override
    protected void onDatagram(ByteBuf datagram, InetSocketAddress sender, InetSocketAddress recipient) {
        long now = datagramTime();
        switch (core.handle(datagram, sender, now)) {
            case ROUTE -> deliver(core.target(), datagram, sender, now);
            case ACCEPT -> accept(datagram, sender, recipient, now);
            case RESPOND -> send(core.takeResponse(), sender);
            case HAND_OVER -> {
                SocketGroup<Object> sockets = group;
                if (sockets != null) {
                    // dropped if its connection ended meanwhile or the datagram hopped once already
                    handOver(sockets, sockets.owner(new RouteKey(sender, core.handOverId())), datagram, sender);
                }
            }
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
        SocketGroup<Object> sockets = group;
        RouteKey key = new RouteKey(sender, core.handshakeRecvId());
        EngineEndpoint<?> other = sockets == null ? null : sockets.claim(key, this);
        if (other != null) {
            core.withdraw(); // another socket accepted this peer meanwhile: it answers
            handOver(sockets, other, datagram, sender);
            return;
        }
        UtpSocketChannel child = listener.accept(this, handshake, sender, now);
        if (child == null) {
            if (sockets != null) {
                sockets.release(key, this);
            }
            core.withdraw();
            return;
        }
        core.accepted(child);
        if (handshake.revived()) {
            deliver(child, datagram, sender, now); // its confirmation
        } else {
            afterCall(child); // the answer to the SYN leaves
        }
    }
}
