package io.ferry.transport.udt;

import io.ferry.transport.udp.engine.EngineEndpoint;
import io.ferry.transport.udp.engine.SocketGroup;
import io.ferry.transport.udt.proto.core.UdtListener;
import io.ferry.transport.udt.proto.wire.Handshake;
import io.ferry.transport.udt.proto.wire.UdtPacket;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;

import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One UDP socket and the UDT connections it carries. UDT addresses every packet to a socket id:
 * datagrams for a known id go to that connection (from its peer's address only); handshakes addressed to
 * id 0 go to the listener ({@link UdtListener}: cookie, then a new connection), or to the connection a
 * repeated request belongs to, or, on a client's own socket, to its one connection (a rendezvous peer's
 * requests). A listener's sockets share one {@link UdtListener} and one {@link SocketGroup}: socket ids
 * are unique across the listener, and a datagram or repeated request that the kernel delivers to a socket
 * other than its connection's (its spread over the sockets changed) is handed to that socket, never
 * accepted twice. The engine's driver loop ({@link EngineEndpoint}) does the rest: timers, batched sends
 * in GSO runs, the socket's backpressure, containment.
 */
final class UdtEndpoint extends EngineEndpoint<UdtSocketChannel> {

    private final UdtSettings settings;
    private final boolean clientSocket;
    private final Map<Integer, UdtSocketChannel> byId = new HashMap<>();
    /** Accepted connections by their peer's address and socket id: a repeated request is answered by its connection. */
    private final Map<PeerKey, UdtSocketChannel> byPeer = new HashMap<>();
    private final AtomicLong unroutable = new AtomicLong();
    private volatile UdtServerChannel acceptor;
    private UdtListener listener;
    private SocketGroup<Object> group;

    private record PeerKey(InetSocketAddress address, int socketId) {
    }

    private UdtEndpoint(UdtTransport transport, UdtSettings settings, boolean clientSocket) {
        super(transport.io(), "UDT", clientSocket);
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
        return of(socket, UdtEndpoint.class);
    }

    private Bootstrap bootstrap(EventLoop loop) {
        return bootstrap(loop, settings.mss, settings.udpReceiveBuffer, settings.udpSendBuffer, false);
    }

    // ------------------------------------------------------------------ queries

    long unroutable() {
        return unroutable.get();
    }

    /** Whether any connection still moves data (not merely closed). Event loop. */
    boolean hasConnectionsInProgress() {
        for (UdtSocketChannel c : byId.values()) {
            if (c.connection() != null && !c.connection().isClosed()) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ connections

    /** New requests go to {@code server} from now on, through the listener and group its sockets share. Any thread. */
    void setAcceptor(UdtServerChannel server, UdtListener shared, SocketGroup<Object> sockets) {
        loop().execute(() -> {
            listener = shared;
            group = sockets;
            acceptor = server;
        });
    }

    /** The listener closed: refuse new requests, close the socket after the last connection. Any thread. */
    void acceptorClosed() {
        if (socket() != null && !socket().eventLoop().inEventLoop()) {
            socket().eventLoop().execute(this::acceptorClosed);
            return;
        }
        if (listener != null) {
            listener.setAccepting(false);
        }
        markAcceptorClosed();
    }

    /** Whether this socket is bound to an IPv6 address (its handshakes carry 128-bit addresses). */
    boolean isIpv6() {
        InetSocketAddress local = localAddress();
        return local != null && local.getAddress() instanceof Inet6Address;
    }

    /** A socket id not in use on this socket, nor on the other sockets of its listener (claimed there). */
    int newSocketId() {
        for (;;) {
            int id = 1 + ThreadLocalRandom.current().nextInt(Integer.MAX_VALUE - 1);
            if (!byId.containsKey(id) && (group == null || group.claim(id, this) == null)) {
                return id;
            }
        }
    }

    /** A connection this side opened: its packets are routed to it from now on. */
    void register(UdtSocketChannel channel) {
        byId.put(channel.connection().socketId(), channel);
    }

    @Override
    protected boolean unregister(UdtSocketChannel channel) {
        int id = channel.connection().socketId();
        if (!byId.remove(id, channel)) {
            return false;
        }
        release(id);
        byPeer.entrySet().removeIf(e -> {
            if (e.getValue() != channel) {
                return false;
            }
            release(e.getKey());
            return true;
        });
        return true;
    }

    @Override
    protected Collection<UdtSocketChannel> unregisterAll() {
        List<UdtSocketChannel> all = new ArrayList<>(byId.values());
        byId.keySet().forEach(this::release);
        byPeer.keySet().forEach(this::release);
        byId.clear();
        byPeer.clear();
        return all;
    }

    private void release(Object key) {
        if (group != null) {
            group.release(key, this);
        }
    }

    @Override
    protected Collection<UdtSocketChannel> connections() {
        return byId.values();
    }

    // ------------------------------------------------------------------ receiving

    @Override
    protected void onDatagram(ByteBuf datagram, InetSocketAddress from, InetSocketAddress recipient) {
        if (datagram.readableBytes() < UdtPacket.HEADER_BYTES) {
            unroutable.incrementAndGet();
            return;
        }
        int destination = UdtPacket.destination(datagram);
        if (destination != 0) {
            UdtSocketChannel channel = byId.get(destination);
            if (channel != null && channel.accepts(from)) {
                deliver(channel, datagram, from, datagramTime());
            } else if (channel != null || group == null || !handOver(group, group.owner(destination), datagram, from)) {
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
                    deliver(channel, datagram, from, datagramTime()); // a rendezvous peer's request, or a listener's answer to an id-0 probe
                    return;
                }
            }
            unroutable.incrementAndGet();
            return;
        }
        PeerKey peer = new PeerKey(from, datagram.getInt(datagram.readerIndex() + UdtPacket.HEADER_BYTES + 24));
        UdtSocketChannel existing = byPeer.get(peer);
        if (existing != null) {
            deliver(existing, datagram, from, now()); // a repeated request: its connection answers again
            return;
        }
        if (group != null && handOver(group, group.owner(peer), datagram, from)) {
            return; // a repeated request whose connection lives on another socket of this listener
        }
        accept(datagram, from, peer);
    }

    private void accept(ByteBuf datagram, InetSocketAddress from, PeerKey peer) {
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
        EngineEndpoint<?> other = group == null ? null : group.claim(peer, this);
        if (other != null) {
            handOver(group, other, datagram, from); // another socket accepted this peer meanwhile: it answers
            return;
        }
        int id = newSocketId();
        UdtSocketChannel child = server.accept(this, from, request, id, now);
        if (child == null) {
            release(id);
            release(peer);
            return;
        }
        byId.put(id, child);
        byPeer.put(peer, child);
        afterCall(child); // the response leaves, the application gets the connection
    }
}
