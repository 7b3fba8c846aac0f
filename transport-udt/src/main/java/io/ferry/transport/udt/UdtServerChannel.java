package io.ferry.transport.udt;

import io.ferry.transport.spi.ListenerConfig;
import io.netty.channel.socket.ServerSocketChannel;

import com.barchart.udt.SocketUDT;
import com.barchart.udt.nio.ServerSocketChannelUDT;
import com.barchart.udt.nio.SocketChannelUDT;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.nio.AbstractNioMessageChannel;
import io.netty.channel.nio.NioIoOps;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A UDT listener. Its settings are written to the listening socket before it binds; UDT copies them
 * into every connection it accepts, and each accepted connection becomes a {@link UdtSocketChannel}.
 */
public final class UdtServerChannel extends AbstractNioMessageChannel implements ServerSocketChannel {

    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);

    private final ServerSocketChannelUDT udt;
    private final SocketUDT socket;
    private final UdtSettings settings;
    private final ListenerConfig config;
    private final AtomicBoolean released = new AtomicBoolean();

    private UdtServerChannel(ServerSocketChannelUDT udt, UdtSettings settings) {
        super(null, udt, NioIoOps.ACCEPT);
        this.udt = udt;
        this.socket = udt.socketUDT();
        this.settings = settings;
        this.config = new ListenerConfig(this);
    }

    static UdtServerChannel newListener(UdtSettings settings) throws IOException {
        return UdtRuntime.open(UdtTransport.provider(settings)::openServerSocketChannel, settings,
                udt -> new UdtServerChannel(udt, settings));
    }

    /** The listening socket, for tests that read its native options. */
    SocketUDT socketUDT() {
        return socket;
    }

    @Override
    public ListenerConfig config() {
        return config;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    public boolean isActive() {
        return udt.isOpen() && socket.isBound();
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return null;
    }

    @Override
    protected SocketAddress localAddress0() {
        return UdtChannelConfig.localAddressOf(socket);
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return null;
    }

    @Override
    protected void doBind(SocketAddress localAddress) throws Exception {
        socket.bind(UdtAddresses.ipv4(localAddress, "listen on"));
        socket.listen(settings.backlog);
    }

    /**
     * With auto-read off, a {@code read()} also looks for a connection at once: UDT's epoll reports a
     * listener ready only when a connection arrives, so one that arrived while the listener was not asking
     * would otherwise wait for the next. Only while that read is still pending, so one {@code read()} still
     * brings at most one loop of accepts.
     */
    @Override
    protected void doBeginRead() throws Exception {
        super.doBeginRead();
        if (!config.isAutoRead()) {
            eventLoop().execute(this::acceptQueued);
        }
    }

    @SuppressWarnings("deprecation") // isReadPending: the NIO read's own flag, which this read must honour
    private void acceptQueued() {
        if (isOpen() && isReadPending() && !config.isAutoRead()) {
            ((NioUnsafe) unsafe()).read();
        }
    }

    @Override
    protected int doReadMessages(List<Object> buf) throws Exception {
        SocketChannelUDT accepted = UdtRuntime.accept(udt);
        if (accepted == null) {
            return 0;
        }
        try {
            buf.add(new UdtSocketChannel(this, accepted, settings, true));
            return 1;
        } catch (RuntimeException e) {
            UdtRuntime.closeAndRelease(accepted, new AtomicBoolean());
            throw e;
        }
    }

    @Override
    protected void doClose() throws Exception {
        UdtRuntime.closeAndRelease(udt, released);
    }

    @Override
    protected boolean doConnect(SocketAddress remoteAddress, SocketAddress localAddress) {
        throw new UnsupportedOperationException("a UDT listener does not connect");
    }

    @Override
    protected void doFinishConnect() {
        throw new UnsupportedOperationException("a UDT listener does not connect");
    }

    @Override
    protected void doDisconnect() {
        throw new UnsupportedOperationException("a UDT listener has no peer");
    }

    @Override
    protected boolean doWriteMessage(Object msg, ChannelOutboundBuffer in) {
        throw new UnsupportedOperationException("a UDT listener carries no data");
    }

    @Override
    protected boolean closeOnReadError(Throwable cause) {
        // A failed accept (e.g. the peer gave up during the handshake) does not end the listener.
        return !udt.isOpen();
    }
}
