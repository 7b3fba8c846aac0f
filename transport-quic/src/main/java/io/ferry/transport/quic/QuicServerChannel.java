package io.ferry.transport.quic;

import io.ferry.transport.FerryChannels;
import io.ferry.transport.spi.AbstractHostingServerChannel;
import io.ferry.transport.spi.ListenerConfig;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;

import java.net.InetSocketAddress;

/**
 * A QUIC listener: one UDP socket with Netty's QUIC server codec (its inner listener); each connection
 * whose stream shows Ferry's preamble becomes a {@link QuicSocketChannel} that waits here, as an accepted
 * socket waits in a kernel's backlog, until the bootstrap's acceptor takes it. Closing the listener refuses
 * new connections; those accepted live on, and the socket closes after the last of them.
 */
public final class QuicServerChannel extends AbstractHostingServerChannel<QuicSocketChannel> {

    private final QuicTransport transport;
    private final QuicSettings settings;
    private final ListenerConfig config = new ListenerConfig(this);
    /** QUIC connections on the socket (its loop, which is this listener's). */
    private int connections;

    QuicServerChannel(QuicTransport transport, QuicSettings settings) {
        super(child -> child.abort());
        this.transport = transport;
        this.settings = settings;
        attr(FerryChannels.TRANSPORT).set(transport);
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

    /** The socket's bind ended (this channel's loop). */
    void socketBound(io.netty.channel.ChannelFuture bound, ChannelPromise promise) {
        innerBound(bound, promise);
    }

    @Override
    protected void closeInner(Channel boundOrNull, boolean bindStarted) {
        if (boundOrNull != null && connections == 0) {
            boundOrNull.close();
        }
    }

    /** A QUIC connection arrived on the socket: counted, or refused once this listener closed. */
    void connectionOpened(QuicChannel quic) {
        if (!isOpen()) {
            quic.close(true, QuicTransport.REFUSED, Unpooled.EMPTY_BUFFER);
            return;
        }
        connections++;
        quic.closeFuture().addListener(f -> {
            connections--;
            Channel socket = inner();
            if (!isOpen() && connections == 0 && socket != null) {
                socket.close();
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
        quic.attr(QuicSocketChannel.OWNER).set(child);
        transport.track(child);
        accepted(child);
        return child;
    }
}
