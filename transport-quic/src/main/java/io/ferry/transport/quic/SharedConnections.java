package io.ferry.transport.quic;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * Client connections that several channels share ({@link io.ferry.transport.FerryChannelOption#SHARED_CONNECTION}),
 * by the group's name: the event loop the group's channels live on (a stream lives on its connection's loop)
 * and the one dial they all wait for. A group is forgotten when its dial fails or its connection ends; a
 * channel of the same name after that dials anew.
 */
final class SharedConnections {

    private final ConcurrentMap<String, Group> groups = new ConcurrentHashMap<>();

    private static final class Group {
        final EventLoop loop;
        /** The dial, once the group's first channel connects; read and set on {@link #loop}. */
        Future<QuicConnection> dial;

        Group(EventLoop loop) {
            this.loop = loop;
        }
    }

    /** The loop of group {@code name}, chosen by {@code next} for a new group. */
    EventLoop loop(String name, Supplier<EventLoop> next) {
        return groups.computeIfAbsent(name, n -> new Group(next.get())).loop;
    }

    /**
     * The connection of group {@code name}: its dial in progress or done, or {@code dialer}'s, started now.
     * Called on the group's loop, by a channel created with {@link #loop}.
     */
    Future<QuicConnection> connection(String name, Supplier<Future<QuicConnection>> dialer) {
        Group g = groups.get(name);
        if (g == null) {
            return dialer.get(); // the group ended before this channel connected: a connection of its own
        }
        if (g.dial == null) {
            Future<QuicConnection> dial = dialer.get();
            g.dial = dial;
            dial.addListener(f -> {
                if (!f.isSuccess()) {
                    groups.remove(name, g);
                } else {
                    ((QuicConnection) f.getNow()).quic().closeFuture().addListener(c -> groups.remove(name, g));
                }
            });
        }
        return g.dial;
    }
}
