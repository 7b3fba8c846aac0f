package io.ferry.transport.spi;

import io.netty.channel.Channel;
import io.netty.channel.ServerChannel;

import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * The accepted connections of a listener that is not a kernel socket, waiting for the bootstrap's acceptor
 * as accepted sockets wait in a kernel's backlog: all of them go down the listener's pipeline while its
 * auto-read is on, one per {@code read()} while it is off; a closed listener resets those it never handed on.
 * The listener's loop only.
 */
public final class AcceptBacklog<C extends Channel> {

    private final ServerChannel listener;
    private final Consumer<C> reset;
    private final ArrayDeque<C> waiting = new ArrayDeque<>();
    private boolean acceptPending;

    /** {@code reset} ends a connection the listener closed before handing it on. */
    public AcceptBacklog(ServerChannel listener, Consumer<C> reset) {
        this.listener = listener;
        this.reset = reset;
    }

    /** A connection is ready for the acceptor. */
    public void add(C child) {
        waiting.add(child);
        drain();
    }

    /** The listener's {@code read()} ({@code doBeginRead}): one connection may go even with auto-read off. */
    public void requested() {
        acceptPending = true;
        drain();
    }

    /** Hands on what the listener's auto-read or a pending read allows; after the listener closed, resets the rest. */
    public void drain() {
        if (!listener.isOpen()) {
            for (C c; (c = waiting.poll()) != null; ) {
                reset.accept(c);
            }
            return;
        }
        boolean any = false;
        while (!waiting.isEmpty() && (listener.config().isAutoRead() || acceptPending)) {
            acceptPending = false;
            any = true;
            listener.pipeline().fireChannelRead(waiting.poll());
            if (!listener.config().isAutoRead()) {
                break;
            }
        }
        if (any) {
            listener.pipeline().fireChannelReadComplete();
        }
    }
}
