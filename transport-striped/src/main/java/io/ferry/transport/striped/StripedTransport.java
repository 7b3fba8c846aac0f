package io.ferry.transport.striped;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.DataLossException;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.Transport;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.spi.ChildHandlers;
import io.ferry.transport.spi.LingeringChannels;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelPromise;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Striped connections over another transport: what {@link io.ferry.transport.Transports} uses when a
 * connection or listener has {@link FerryChannelOption#STREAMS}. Each {@link StripedChannel} it makes is
 * carried by member connections of the underlying transport; its name, and so the statistics and meters
 * of its channels, are the underlying transport's.
 */
public final class StripedTransport implements Transport {

    private static final InternalLogger LOG = InternalLoggerFactory.getInstance(StripedTransport.class);


    /** How long a member may take between connecting and saying (or hearing) which session it carries. */
    static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
    /** Sessions a listener holds while their members arrive; more are refused. */
    static final int MAX_PENDING_SESSIONS = 1024;
    /** The write-buffer water marks of a member connection. */
    private static final WriteBufferWaterMark MEMBER_WATER_MARK = new WriteBufferWaterMark(128 << 10, 256 << 10);

    /** Options that belong to the striped channel itself rather than to its members. */
    private static final Set<ChannelOption<?>> OWN = Set.of(FerryChannelOption.STREAMS, StripedChannelOption.EAGER_HELLO, ChannelOption.AUTO_READ,
            ChannelOption.ALLOW_HALF_CLOSURE, ChannelOption.WRITE_BUFFER_WATER_MARK);

    private final Transport underlying;
    private final ChannelGroup channels = new DefaultChannelGroup("striped", GlobalEventExecutor.INSTANCE);
    /** Listeners made through {@link #bootstrapping}; {@link #listen}'s are the underlying transport's own. */
    private final ChannelGroup listeners = new DefaultChannelGroup("striped-listeners", GlobalEventExecutor.INSTANCE);

    private StripedTransport(Transport underlying) {
        this.underlying = underlying;
    }

    /** Striped connections over {@code underlying}. */
    public static StripedTransport over(Transport underlying) {
        return new StripedTransport(underlying);
    }

    /** The transport that carries the members. */
    public Transport underlying() {
        return underlying;
    }

    @Override
    public String name() {
        return underlying.name();
    }

    @Override
    public Set<ChannelOption<?>> supportedOptions() {
        Set<ChannelOption<?>> all = new HashSet<>(underlying.supportedOptions());
        all.addAll(OWN);
        return Collections.unmodifiableSet(all);
    }

    /** Whether {@code option} on a bootstrap's striped listener is for the members' listener (a transport's own, not Netty's). */
    boolean isMemberListenerOption(ChannelOption<?> option) {
        return option.getClass() != ChannelOption.class && !OWN.contains(option) && underlying.supportedOptions().contains(option);
    }

    /**
     * The options of one striped channel's members: the channel's own taken out and, for a {@code client}'s
     * members where the underlying transport can carry several streams in one connection (QUIC), a
     * {@link FerryChannelOption#SHARED_CONNECTION} of their own, so that they are streams of one connection
     * under one congestion controller.
     */
    private ChannelOptions memberOptions(ChannelOptions options, boolean client) {
        ChannelOptions.Builder b = options.toBuilder();
        for (ChannelOption<?> own : OWN) {
            b.remove(own);
        }
        if (client && underlying.supportedOptions().contains(FerryChannelOption.SHARED_CONNECTION)
                && options.get(FerryChannelOption.SHARED_CONNECTION).isEmpty()) {
            b.set(FerryChannelOption.SHARED_CONNECTION, "striped-" + UUID.randomUUID());
        }
        return b.build();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void applyOwn(StripedChannel channel, ChannelOptions options) {
        for (Map.Entry<ChannelOption<?>, Object> e : options.asMap().entrySet()) {
            if (OWN.contains(e.getKey()) && e.getKey() != FerryChannelOption.STREAMS && e.getKey() != StripedChannelOption.EAGER_HELLO) {
                channel.config().setOption((ChannelOption) e.getKey(), e.getValue());
            }
        }
    }

    private static Duration linger(ChannelOptions options) {
        return options.get(FerryChannelOption.LINGER).orElse(FerryChannelOption.DEFAULT_LINGER);
    }

    /**
     * Netty's epoll option that bounds the bytes a TCP socket holds unsent ({@code TCP_NOTSENT_LOWAT}),
     * looked up by name so that this module needs no native transport.
     */
    private static final String NOTSENT_LOWAT = "io.netty.channel.epoll.EpollChannelOption#TCP_NOTSENT_LOWAT";
    /**
     * What a TCP member may hold unsent in its kernel: without a bound every member's send buffer grows to
     * {@code tcp_wmem}'s maximum (4 MiB) behind a slow reader, 64 MiB for 16 members. At 512 KiB a member
     * still has 20 ms of data queued at 200 Mbit/s, far more than an event loop takes to refill it.
     */
    static final long MEMBER_NOTSENT_LOWAT = 512 << 10;

    @SuppressWarnings("unchecked")
    private static void prepareMember(Channel ch) {
        ch.config().setAutoRead(false);
        ch.config().setWriteBufferWaterMark(MEMBER_WATER_MARK);
        if (ChannelOption.exists(NOTSENT_LOWAT)) {
            try {
                ch.config().setOption((ChannelOption<Long>) (ChannelOption<?>) ChannelOption.valueOf(NOTSENT_LOWAT), MEMBER_NOTSENT_LOWAT);
            } catch (RuntimeException notThisKindOfChannel) {
                // a member that is not an epoll TCP socket keeps its transport's own buffering
            }
        }
        try {
            ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        } catch (RuntimeException notSupported) {
            // the member then closes when the peer's member ends, which the striped channel also understands
        }
    }

    // ------------------------------------------------------------------ client

    @Override
    public ChannelFuture connect(InetSocketAddress remote, ChannelHandler handler, ChannelOptions options) {
        options.requireSupported(name(), supportedOptions());
        int count = options.get(FerryChannelOption.STREAMS).orElse(1);
        ChannelOptions members = memberOptions(options, true);
        Duration timeout = options.get(FerryChannelOption.CONNECT_TIMEOUT).orElse(HANDSHAKE_TIMEOUT);
        StripedChannel striped = new StripedChannel(null, this, count, linger(options));
        applyOwn(striped, options);
        striped.pipeline().addLast(handler);
        ChannelPromise promise = new DefaultChannelPromise(striped, GlobalEventExecutor.INSTANCE);
        openMembers(new StripedClientSession(this, striped, promise, count, false), timeout, eager(options), init -> underlying.connect(remote, init, members));
        return promise;
    }

    /**
     * Connects a channel a bootstrap's factory made ({@link StripedChannel#unconnected}): its members
     * connect as {@link #connect}'s do, and the channel becomes active once all of them are there.
     */
    void connectMembers(StripedChannel striped, InetSocketAddress remote, InetSocketAddress local, ChannelOptions options,
                        ChannelPromise promise) {
        int count = options.get(FerryChannelOption.STREAMS).orElse(1);
        Duration timeout = options.get(FerryChannelOption.CONNECT_TIMEOUT)
                .orElse(Duration.ofMillis(striped.config().getConnectTimeoutMillis()));
        // the bootstrap's CONNECT_TIMEOUT_MILLIS bounds the members' own connects too: a member whose SYN
        // goes unanswered would otherwise wait for its transport's default
        ChannelOptions members = memberOptions(options, true).toBuilder().set(FerryChannelOption.CONNECT_TIMEOUT, timeout).build();
        java.util.function.Function<ChannelInitializer<Channel>, ChannelFuture> connector;
        if (local == null) {
            connector = init -> underlying.connect(remote, init, members);
        } else {
            // a local address asked for: each member binds it (port 0 gives each a port of its own), which only
            // the underlying transport's own bootstrap can do
            io.ferry.transport.Bootstrapping parts = underlying.bootstrapping(members);
            connector = init -> parts.bootstrap().handler(init)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()))
                    .connect(remote, local);
        }
        StripedClientSession session = new StripedClientSession(this, striped, promise, count, true);
        // closed (or its connect cancelled) while the members connect: they go too
        striped.closeFuture().addListener(f -> session.fail(new java.nio.channels.ClosedChannelException()));
        try {
            openMembers(session, timeout, eager(options), connector);
        } catch (RuntimeException e) {
            striped.client().failed(promise, e);
        }
    }

    private static boolean eager(ChannelOptions options) {
        return options.get(StripedChannelOption.EAGER_HELLO).orElse(false);
    }

    private void openMembers(StripedClientSession session, Duration timeout, boolean eager,
                             java.util.function.Function<ChannelInitializer<Channel>, ChannelFuture> connector) {
        int count = session.channels.length;
        UUID id = UUID.randomUUID();
        for (int i = 0; i < count; i++) {
            int index = i;
            ChannelFuture f;
            try {
                f = connector.apply(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        session.memberRegistered(ch.eventLoop());
                        prepareMember(ch);
                        ch.pipeline().addLast(MemberHandler.client(session, timeout, id, index, count, eager));
                    }
                });
            } catch (RuntimeException e) {
                session.fail(e);
                if (i == 0) {
                    throw e;
                }
                break;
            }
            session.channels[i] = f.channel();
            session.connects[i] = f;
            f.addListener(done -> {
                if (!done.isSuccess()) {
                    session.fail(done.cause());
                }
            });
        }
    }

    /** Registers a striped channel whose members are all attached; registration binds the members to it. */
    void start(StripedChannel striped, ChannelPromise promise) {
        channels.add(striped);
        striped.intendedLoop().register(striped).addListener(f -> {
            if (!f.isSuccess()) {
                for (Channel ch : striped.members()) {
                    ch.close();
                }
                if (promise != null) {
                    promise.tryFailure(f.cause());
                }
                return;
            }
            if (promise != null) {
                promise.trySuccess();
            }
        });
    }

    // ------------------------------------------------------------------ Netty's bootstraps

    /**
     * Striped channels for Netty's {@code Bootstrap}/{@code ServerBootstrap}: the group is the underlying
     * transport's (a striped channel lives on any of its loops, its members on their own); a client made
     * by the factory opens its {@link FerryChannelOption#STREAMS} members on {@code connect}, and a listener
     * hands each striped connection its members make up to the bootstrap's acceptor.
     *
     * @throws UnsupportedOperationException if the underlying transport does not serve bootstraps
     */
    @Override
    public io.ferry.transport.Bootstrapping bootstrapping(ChannelOptions options) {
        options.requireSupported(name(), supportedOptions());
        io.ferry.transport.Bootstrapping carrier = underlying.bootstrapping(memberOptions(options, false));
        int count = options.get(FerryChannelOption.STREAMS).orElse(1);
        return new io.ferry.transport.Bootstrapping(carrier.group(), () -> {
            StripedChannel ch = StripedChannel.unconnected(this, count, linger(options), options);
            applyOwn(ch, options);
            channels.add(ch);
            return ch;
        }, () -> {
            StripedServerChannel server = new StripedServerChannel(this, options);
            server.attr(FerryChannels.STRIPED_STREAMS).set(count);
            listeners.add(server);
            return server;
        });
    }

    // ------------------------------------------------------------------ listener

    @Override
    public ChannelFuture listen(InetSocketAddress local, ChannelHandler childHandler, ChannelOptions options) {
        options.requireSupported(name(), supportedOptions());
        Sessions sessions = new Sessions(childHandler, null, options);
        ChannelFuture bound = listenForMembers(local, sessions, options);
        sessions.listener = bound.channel();
        bound.channel().attr(FerryChannels.STRIPED_STREAMS).set(options.get(FerryChannelOption.STREAMS).orElse(1));
        return bound;
    }

    /**
     * Binds a listener a bootstrap made ({@link StripedServerChannel}): its transport's listener takes the
     * member connections, and each striped connection they make up goes to the server channel's acceptor.
     * {@code promise} completes, on the server channel's loop, once the member listener is bound.
     */
    void bindListener(StripedServerChannel server, InetSocketAddress local, ChannelOptions options, ChannelPromise promise) {
        Sessions sessions = new Sessions(null, server, options);
        sessions.listener = server;
        ChannelFuture bound;
        try {
            bound = listenForMembers(local, sessions, options);
        } catch (RuntimeException e) {
            promise.tryFailure(e);
            return;
        }
        bound.addListener(f -> server.eventLoop().execute(() -> server.membersBound(bound, promise)));
    }

    private ChannelFuture listenForMembers(InetSocketAddress local, Sessions sessions, ChannelOptions options) {
        return underlying.listen(local, new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                prepareMember(ch);
                ch.pipeline().addLast(MemberHandler.accepted(sessions, HANDSHAKE_TIMEOUT));
            }
        }, memberOptions(options, false));
    }

    /** The sessions a striped listener is assembling. */
    private final class Sessions implements MemberHandler.Handshake {
        /** What each connection gets from {@link #listen}; null for a bootstrap's listener. */
        final ChannelHandler childHandler;
        /** A bootstrap's listener, whose acceptor takes each connection; null for {@link #listen}'s. */
        final StripedServerChannel server;
        final ChannelOptions options;
        final Map<UUID, Pending> pending = new HashMap<>();
        volatile Channel listener;

        Sessions(ChannelHandler childHandler, StripedServerChannel server, ChannelOptions options) {
            this.childHandler = childHandler;
            this.server = server;
            this.options = options;
        }

        @Override
        public void done(MemberHandler member) {
            Pending complete = null;
            String refusal = null;
            synchronized (this) {
                Pending p = pending.get(member.session());
                if (p == null) {
                    if (pending.size() >= MAX_PENDING_SESSIONS) {
                        refusal = "too many striped sessions are assembling at this listener; try again later";
                    } else {
                        p = new Pending(member.session(), member.count(), member.channel().remoteAddress());
                        pending.put(member.session(), p);
                        Pending scheduled = p;
                        member.channel().eventLoop().schedule(() -> expire(scheduled),
                                HANDSHAKE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                    }
                }
                if (refusal == null) {
                    if (member.count() != p.handlers.length || p.handlers[member.index()] != null
                            || !sameHost(p.remote, member.channel().remoteAddress())) {
                        refusal = "member " + member.index() + " of " + member.count() + " does not fit its session";
                    } else {
                        p.handlers[member.index()] = member;
                        if (++p.arrived == p.handlers.length) {
                            pending.remove(p.id);
                            complete = p;
                        }
                    }
                }
            }
            if (refusal != null) {
                String why = refusal;
                member.channel().eventLoop().execute(() -> member.refuse(why));
                return;
            }
            if (complete != null) {
                List<Channel> list = new ArrayList<>();
                for (MemberHandler h : complete.handlers) {
                    list.add(h.channel());
                }
                StripedChannel child = new StripedChannel(listener, StripedTransport.this, list.size(), linger(options));
                applyOwn(child, options);
                child.attach(list, complete.handlers);
                if (server != null) {
                    channels.add(child);
                    server.add(child);
                    return;
                }
                try {
                    ChildHandlers.addLast(child, childHandler);
                } catch (RuntimeException e) {
                    // as Netty's ServerBootstrap does: log, and the connection goes (its members are reset)
                    LOG.warn("Failed to initialize an accepted striped connection from {}; resetting it", complete.remote, e);
                    for (MemberHandler h : complete.handlers) {
                        io.ferry.transport.FerryChannels.abort(h.channel());
                    }
                    return;
                }
                start(child, null);
            }
        }

        private void expire(Pending p) {
            List<MemberHandler> toRefuse = new ArrayList<>();
            synchronized (this) {
                if (pending.remove(p.id) == null) {
                    return;
                }
                for (MemberHandler h : p.handlers) {
                    if (h != null) {
                        toRefuse.add(h);
                    }
                }
            }
            for (MemberHandler h : toRefuse) {
                h.channel().eventLoop().execute(() -> h.refuse("only " + p.arrived + " of the session's " + p.handlers.length
                        + " member connections arrived within " + HANDSHAKE_TIMEOUT.toSeconds() + " s"));
            }
        }

        @Override
        public void failed(MemberHandler member, Throwable cause) {
            // A member that never said its session needs nothing; one of a session makes the session fail.
            if (member.session() == null) {
                return;
            }
            List<MemberHandler> others = new ArrayList<>();
            synchronized (this) {
                Pending p = pending.get(member.session());
                if (p == null || p.handlers[member.index()] != member) {
                    return;
                }
                pending.remove(p.id);
                for (MemberHandler h : p.handlers) {
                    if (h != null && h != member) {
                        others.add(h);
                    }
                }
            }
            for (MemberHandler h : others) {
                h.channel().eventLoop().execute(() -> h.refuse("another member connection of the session failed: " + cause));
            }
        }
    }

    private static boolean sameHost(java.net.SocketAddress a, java.net.SocketAddress b) {
        if (a instanceof InetSocketAddress && b instanceof InetSocketAddress) {
            return java.util.Objects.equals(((InetSocketAddress) a).getAddress(), ((InetSocketAddress) b).getAddress());
        }
        return true;
    }

    /** A session whose members are arriving. */
    private static final class Pending {
        final UUID id;
        final MemberHandler[] handlers;
        final java.net.SocketAddress remote;
        int arrived;

        Pending(UUID id, int count, java.net.SocketAddress remote) {
            this.id = id;
            this.handlers = new MemberHandler[count];
            this.remote = remote;
        }
    }

    // ------------------------------------------------------------------ statistics, abort, close

    @Override
    public TransportStatistics statistics(Channel channel) {
        if (!(channel instanceof StripedChannel) || ((StripedChannel) channel).transport() != this) {
            throw new IllegalArgumentException("channel " + channel + " is not a striped channel of this transport");
        }
        return StripedStatistics.of(name(), (StripedChannel) channel);
    }

    @Override
    public ChannelFuture abort(Channel channel) {
        if (!(channel instanceof StripedChannel)) {
            throw new IllegalArgumentException("channel " + channel + " is not a striped channel");
        }
        return ((StripedChannel) channel).abort();
    }

    /**
     * Closes every striped channel gracefully (each may take its members' linger twice: once to drain,
     * once to be acknowledged); the underlying transport is closed by whoever owns it.
     *
     * @throws DataLossException naming each striped channel that could not deliver everything
     */
    @Override
    public void close() {
        listeners.close().awaitUninterruptibly(HANDSHAKE_TIMEOUT.toMillis());
        List<UndeliveredDataException> losses = LingeringChannels.closeAll(channels,
                ch -> ((StripedChannel) ch).linger().multipliedBy(2));
        LingeringChannels.report(losses);
    }

    /**
     * The member losses that the striped channels' own losses already report: {@link io.ferry.transport.Transports}
     * leaves them out when the underlying transport names them again.
     */
    @Override
    public Set<UndeliveredDataException> carrierLossesReported() {
        Set<UndeliveredDataException> all = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Channel ch : channels) {
            all.addAll(((StripedChannel) ch).memberLosses());
        }
        all.addAll(closedMemberLosses);
        return all;
    }

    private final Set<UndeliveredDataException> closedMemberLosses =
            Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

    void closed(StripedChannel channel) {
        closedMemberLosses.addAll(channel.memberLosses());
    }

    @Override
    public String toString() {
        return "striped/" + underlying;
    }
}
