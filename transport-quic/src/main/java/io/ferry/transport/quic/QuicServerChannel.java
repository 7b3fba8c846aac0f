package io.ferry.transport.quic;

import io.ferry.transport.FerryChannels;
import io.ferry.transport.spi.AbstractHostingServerChannel;
import io.ferry.transport.spi.ListenerConfig;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A QUIC listener: UDP sockets with Netty's QUIC server codec on one port, one per event loop where the
 * sockets are epoll's ({@code SO_REUSEPORT}; the first is its inner listener); each connection
 * whose stream shows Ferry's preamble becomes a {@link QuicSocketChannel} that waits here, as an accepted
 * socket waits in a kernel's backlog, until the bootstrap's acceptor takes it. Closing the listener refuses
 * new connections; those accepted live on, and the sockets close after the last of them.
 */
public final class QuicServerChannel extends AbstractHostingServerChannel<QuicSocketChannel> {

    private final QuicTransport transport;
    /** The settings of the listener and its connections: made anew when a bootstrap sets an option before the bind. */
    private volatile QuicSettings settings;
    private final ListenerConfig config = new ListenerConfig(this) {
        @Override
        public <T> boolean setOption(io.netty.channel.ChannelOption<T> option, T value) {
            if (super.setOption(option, value)) {
                return true;
            }
            if (!QuicSettings.PROTOCOL_OPTIONS.contains(option)) {
                return false; // a connection's own options (half-closure, water marks, ...) are the children's: childOption
            }
            validate(option, value);
            setQuicOption(option, value);
            return true;
        }

        @Override
        public <T> T getOption(io.netty.channel.ChannelOption<T> option) {
            if (QuicSettings.PROTOCOL_OPTIONS.contains(option)) {
                return pending.get(option).orElse(null);
            }
            return super.getOption(option);
        }
    };
    /** The options the listener was made with and those a bootstrap's {@code option(...)} calls set before the bind. */
    private volatile io.ferry.transport.ChannelOptions pending;
    /** QUIC connections on the sockets (from every socket's loop). */
    private final java.util.concurrent.atomic.AtomicInteger connections = new java.util.concurrent.atomic.AtomicInteger();
    /** The sockets bound beside the first on the transport's other loops (SO_REUSEPORT); set once on this loop. */
    private volatile List<Channel> spread = List.of();

    QuicServerChannel(QuicTransport transport, io.ferry.transport.ChannelOptions options, QuicSettings settings) {
        super(child -> child.abort());
        this.transport = transport;
        this.pending = options;
        this.settings = settings;
        attr(FerryChannels.TRANSPORT).set(transport);
    }

    /**
     * A QUIC option set through {@code ServerBootstrap.option(...)} (its TLS, idle timeout, ...), as
     * {@code Transports.listen}'s options set it.
     *
     * @throws IllegalStateException once the listener is bound (its sockets run with the settings they started with)
     * @throws io.ferry.transport.UnsupportedOptionException for a value QUIC cannot honour
     */
    private <T> void setQuicOption(io.netty.channel.ChannelOption<T> option, T value) {
        if (inner() != null) {
            throw new IllegalStateException("QUIC option " + option.name() + " is set before the listener is bound");
        }
        io.ferry.transport.ChannelOptions next = pending.toBuilder().set(option, value).build();
        settings = QuicSettings.of(next);
        pending = next;
    }

    @Override
    public ListenerConfig config() {
        return config;
    }

    @Override
    protected String kind() {
        return "a QUIC listener";
    }

    QuicSettings settings() {
        return settings;
    }

    @Override
    protected void bindInner(InetSocketAddress local, ChannelPromise promise) {
        transport.bindListener(this, local, promise);
    }

    /**
     * The sockets' binds ended (this channel's loop): the listener is active once the first is bound; of the
     * others those that bound serve too (a failed one only narrows the spread).
     */
    void socketsBound(ChannelFuture first, List<ChannelFuture> others, ChannelPromise promise) {
        List<Channel> bound = new ArrayList<>();
        for (ChannelFuture f : others) {
            if (f.isSuccess()) {
                bound.add(f.channel());
            }
        }
        spread = List.copyOf(bound);
        innerBound(first, promise);
        if (!first.isSuccess() || !isOpen()) {
            bound.forEach(Channel::close);
        }
    }

    /** How many UDP sockets serve this listener: one per event loop where they spread, else one. */
    public int socketCount() {
        return inner() == null ? 0 : 1 + spread.size();
    }

    @Override
    protected void closeInner(Channel boundOrNull, boolean bindStarted) {
        if (boundOrNull != null && connections.get() == 0) {
            closeSockets(boundOrNull);
        }
    }

    private void closeSockets(Channel first) {
        first.close();
        spread.forEach(Channel::close);
    }

    /** A QUIC connection arrived on a socket (that socket's loop): counted, or refused once this listener closed. */
    void connectionOpened(QuicChannel quic) {
        if (!isOpen()) {
            quic.close(true, QuicTransport.REFUSED, Unpooled.EMPTY_BUFFER);
            return;
        }
        connections.incrementAndGet();
        quic.closeFuture().addListener(f -> {
            Channel socket = inner();
            if (connections.decrementAndGet() == 0 && !isOpen() && socket != null) {
                closeSockets(socket);
            }
        });
    }

    /** A peer's stream showed Ferry's preamble: its connection goes to the acceptor; null if it cannot. */
    QuicSocketChannel accept(QuicStreamChannel stream) {
        QuicChannel quic = stream.parent();
        if (!isOpen()) {
            quic.close(true, QuicTransport.REFUSED, Unpooled.EMPTY_BUFFER);
            return null;
        }
        QuicSocketChannel child = new QuicSocketChannel(this, transport, settings, stream);
        try {
            settings.applyTo(child);
        } catch (RuntimeException e) {
            pipeline().fireExceptionCaught(e);
            quic.close(true, QuicTransport.REFUSED, Unpooled.EMPTY_BUFFER);
            return null;
        }
        child.attr(FerryChannels.TRANSPORT).set(transport);
        QuicConnection.of(quic).add(child, stream.streamId());
        transport.track(child);
        accepted(child);
        return child;
    }
}
