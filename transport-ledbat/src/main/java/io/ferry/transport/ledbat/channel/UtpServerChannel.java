package io.ferry.transport.ledbat.channel;

import io.ferry.transport.FerryChannels;
import io.netty.buffer.ByteBuf;
import io.netty.channel.AbstractServerChannel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.EventLoop;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A uTP listener: accepts connections arriving on its endpoint's UDP socket as child
 * {@link UtpSocketChannel}s, which share that socket. Closing the listener stops accepting; connections
 * already accepted live on, and the socket closes after the last of them.
 */
public final class UtpServerChannel extends AbstractServerChannel {

    private final ChannelConfig config = new DefaultChannelConfig(this);
    private final UtpTransport transport;
    private final UtpSettings childSettings;
    private final ChannelHandler childHandler;
    private volatile UtpEndpoint endpoint;
    private volatile boolean open = true;

    UtpServerChannel(UtpTransport transport, UtpSettings childSettings, ChannelHandler childHandler) {
        this.transport = transport;
        this.childSettings = childSettings;
        this.childHandler = childHandler;
    }

    /** Called on the event loop once the UDP socket is bound. */
    void bound(UtpEndpoint endpoint) {
        this.endpoint = endpoint;
        endpoint.setAcceptor(this);
        pipeline().fireChannelActive();
    }

    /** Creates and registers the child for a SYN; returns null if the listener cannot take it. */
    UtpSocketChannel accept(UtpEndpoint from, ByteBuf syn, InetSocketAddress sender, long now) {
        UtpSocketChannel child = new UtpSocketChannel(this, transport, childSettings, from, sender);
        try {
            childSettings.applyTo(child);
        } catch (RuntimeException e) {
            pipeline().fireExceptionCaught(e);
            return null;
        }
        child.attach(io.ferry.transport.ledbat.core.UtpConnection.accept(PathMtu.fit(childSettings.protocol, sender), syn,
                ThreadLocalRandom.current().nextInt(1 << 16), now, child.events()));
        from.register(child);
        child.attr(FerryChannels.TRANSPORT).set(transport);
        transport.track(child);
        child.pipeline().addLast(childHandler);
        eventLoop().register(child);
        return child;
    }

    @Override
    public ChannelConfig config() {
        return config;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && endpoint != null;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return true;
    }

    @Override
    protected SocketAddress localAddress0() {
        UtpEndpoint e = endpoint;
        return e == null ? null : e.localAddress();
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        throw new UnsupportedOperationException("a uTP listener is bound by its transport");
    }

    @Override
    protected void doClose() {
        open = false;
        UtpEndpoint e = endpoint;
        if (e != null) {
            e.acceptorClosed();
        }
    }

    @Override
    protected void doBeginRead() {
        // accepting is driven by the endpoint's socket
    }

    /** Datagrams this listener's socket dropped as malformed. */
    public long malformedPacketsDropped() {
        UtpEndpoint e = endpoint;
        return e == null ? 0 : e.malformedDropped();
    }

    /** Valid packets this listener's socket received for connections it does not have (each answered with a RESET). */
    public long packetsForUnknownConnections() {
        UtpEndpoint e = endpoint;
        return e == null ? 0 : e.unknownConnectionPackets();
    }
}
