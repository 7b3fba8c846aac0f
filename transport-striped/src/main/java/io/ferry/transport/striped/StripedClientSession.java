package io.ferry.transport.striped;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;

import java.util.ArrayList;
import java.util.List;

/**
 * A striped client's members while they connect and hear the greeting: when all are there the channel gets them
 * (registered by {@link StripedTransport#start}, or told, for a bootstrap-made one); the first failure fails the
 * connect and closes the channel and every member (split out of {@link StripedTransport}).
 */
final class StripedClientSession implements MemberHandler.Handshake {
    private final StripedTransport transport;
    final StripedChannel striped;
    final ChannelPromise promise;
    final Channel[] channels;
    final ChannelFuture[] connects;
    final MemberHandler[] handlers;
    /** A bootstrap-made channel, registered already: it is told, rather than registered, when the members are there. */
    final boolean bootstrapped;
    /** The loop of the first member that registered: where a failed connect's channel is registered to be closed. */
    private volatile io.netty.channel.EventLoop memberLoop;
    int ready;
    boolean over;

    StripedClientSession(StripedTransport transport, StripedChannel striped, ChannelPromise promise, int count, boolean bootstrapped) {
        this.transport = transport;
        this.striped = striped;
        this.promise = promise;
        this.bootstrapped = bootstrapped;
        this.channels = new Channel[count];
        this.connects = new ChannelFuture[count];
        this.handlers = new MemberHandler[count];
    }

    @Override
    public void done(MemberHandler member) {
        synchronized (this) {
            if (over) {
                return;
            }
            handlers[member.index()] = member;
            if (++ready < channels.length) {
                return;
            }
            over = true;
        }
        List<Channel> list = new ArrayList<>();
        for (MemberHandler h : handlers) {
            list.add(h.channel());
        }
        if (bootstrapped) {
            striped.eventLoop().execute(() -> striped.client().connected(list, handlers, promise));
        } else {
            striped.attach(list, handlers);
            transport.start(striped, promise);
        }
    }

    @Override
    public void failed(MemberHandler member, Throwable cause) {
        fail(cause);
    }

    void fail(Throwable cause) {
        synchronized (this) {
            if (over) {
                return;
            }
            over = true;
        }
        if (bootstrapped) {
            striped.eventLoop().execute(() -> striped.client().failed(promise, cause));
        } else {
            closeUnconnected(cause);
        }
        // A member still connecting is closed once its connect ends, so that its transport never sees a
        // close racing a handshake in progress (the JNI UDT4 that udt:// once ran on crashed on that race).
        for (ChannelFuture f : connects) {
            if (f != null) {
                f.addListener(done -> f.channel().close());
            }
        }
    }

    /**
     * A connect that failed before all its members were there: the channel is registered and closed, as a
     * failed Netty connect's channel is, so that the application may close it or wait on its closeFuture
     * (an unregistered channel's {@code close()} throws), and then the connect fails. With no member ever
     * registered there is no loop to register it on: it is only marked closed.
     */
    void memberRegistered(io.netty.channel.EventLoop loop) {
        if (memberLoop == null) {
            memberLoop = loop;
        }
    }

    private void closeUnconnected(Throwable cause) {
        io.netty.channel.EventLoop loop = memberLoop;
        if (loop == null) {
            striped.abandon();
            promise.tryFailure(cause);
            return;
        }
        striped.neverConnected();
        loop.register(striped).addListener(registered -> {
            if (registered.isSuccess()) {
                striped.close();
            } else {
                striped.abandon();
            }
            promise.tryFailure(cause);
        });
    }
}
