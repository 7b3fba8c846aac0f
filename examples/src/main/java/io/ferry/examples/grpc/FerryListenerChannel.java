package io.ferry.examples.grpc;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.netty.channel.AbstractServerChannel;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.DefaultPromise;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The server channel grpc-netty's {@code ServerBootstrap} binds: binding it opens a Ferry listener on
 * the transport its scheme names, and every connection that listener accepts is passed to the
 * bootstrap's acceptor exactly as a socket server channel passes its children. gRPC's HTTP/2
 * handlers then run in the accepted Ferry channel's own pipeline, on Ferry's event loop.
 */
final class FerryListenerChannel extends AbstractServerChannel {

    private final ChannelConfig config = new DefaultChannelConfig(this);
    private final Transports ferry;
    private final String scheme;
    private final ChannelOptions options;
    private volatile Channel listener;
    private volatile boolean open = true;
    private final java.util.List<Channel> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();

    FerryListenerChannel(Transports ferry, String scheme, ChannelOptions options) {
        this.ferry = ferry;
        this.scheme = scheme;
        this.options = options;
    }

    /** The Ferry connections this listener accepted that are still open. */
    java.util.List<Channel> accepted() {
        return java.util.List.copyOf(accepted);
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
        return open && listener != null && listener.isActive();
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return true;
    }

    @Override
    protected SocketAddress localAddress0() {
        return listener == null ? null : listener.localAddress();
    }

    @Override
    protected void doBind(SocketAddress localAddress) throws Exception {
        InetSocketAddress local = (InetSocketAddress) localAddress;
        String host = local.getAddress() != null ? local.getAddress().getHostAddress() : local.getHostString();
        String uri = scheme + "://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + local.getPort();
        listener = ferry.listen(uri, new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel child) {
                Adopter adopter = new Adopter(new DefaultPromise<>(GlobalEventExecutor.INSTANCE));
                child.attr(Adopter.KEY).set(adopter);
                child.pipeline().addFirst("ferry-adopter", adopter);
                if (!open) {
                    child.close();
                    return;
                }
                accepted.add(child);
                child.closeFuture().addListener(f -> accepted.remove(child));
                eventLoop().execute(() -> pipeline().fireChannelRead(child));
            }
        }, options).sync().channel();
    }

    @Override
    protected void doClose() throws Exception {
        open = false;
        Channel l = listener;
        if (l != null) {
            l.close().sync();
        }
    }

    @Override
    protected void doBeginRead() {
        // Accepted connections are pushed by the Ferry listener as they arrive.
    }
}
