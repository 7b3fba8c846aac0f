package io.ferry.transport.striped;

import io.ferry.transport.FerryChannels;
import io.ferry.transport.TransportStatistics;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DuplexChannel;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a striped channel does to all its members at once: list them and their statistics, reset them, end
 * either direction of each ({@link StripedClose} closes them gracefully). A null array (members not attached
 * yet) has no members.
 */
final class StripeGroup {
    private StripeGroup() {
    }

    /** The member connections, in the order of their index on the wire. */
    static List<Channel> channels(StripeMember[] members) {
        if (members == null) {
            return List.of();
        }
        List<Channel> list = new ArrayList<>(members.length);
        for (StripeMember m : members) {
            list.add(m.channel);
        }
        return Collections.unmodifiableList(list);
    }

    /** A statistics snapshot of each member, in member order: a closed member's last one. */
    static List<TransportStatistics> statistics(StripeMember[] members, StripedTransport transport) {
        if (members == null) {
            return List.of();
        }
        List<TransportStatistics> list = new ArrayList<>(members.length);
        for (StripeMember m : members) {
            TransportStatistics last = m.lastStatistics;
            list.add(last != null && !m.channel.isOpen() ? last : transport.underlying().statistics(m.channel));
        }
        return list;
    }

    /** Resets every member that is still open. */
    static void abort(StripeMember[] members) {
        if (members == null) {
            return;
        }
        for (StripeMember m : members) {
            if (m.channel.isOpen()) {
                FerryChannels.abort(m.channel);
            }
        }
    }

    /** Shuts down each member's input; {@code promise} completes when all have. */
    static void shutdownInputs(StripeMember[] members, ChannelPromise promise) {
        List<ChannelFuture> all = new ArrayList<>();
        for (StripeMember m : members) {
            if (m.channel instanceof DuplexChannel) {
                all.add(((DuplexChannel) m.channel).shutdownInput());
            }
        }
        whenAll(all, promise);
    }

    /**
     * Shuts down each member's output behind what it was given to write; {@code promise} completes when all
     * have, and fails with the first member that could not.
     */
    static void shutdownOutputs(StripeMember[] members, ChannelPromise promise) {
        List<ChannelFuture> all = new ArrayList<>();
        for (StripeMember m : members) {
            ChannelPromise done = m.channel.newPromise();
            all.add(done);
            m.channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> {
                if (!f.isSuccess()) {
                    done.tryFailure(f.cause());
                } else if (m.channel instanceof DuplexChannel) {
                    ((DuplexChannel) m.channel).shutdownOutput(done);
                } else {
                    done.tryFailure(new UnsupportedOperationException("member " + m.channel + " cannot half-close"));
                }
            });
        }
        whenAll(all, promise);
    }

    private static void whenAll(List<ChannelFuture> futures, ChannelPromise promise) {
        if (futures.isEmpty()) {
            promise.trySuccess();
            return;
        }
        AtomicInteger left = new AtomicInteger(futures.size());
        for (ChannelFuture f : futures) {
            f.addListener(done -> {
                if (!done.isSuccess()) {
                    promise.tryFailure(done.cause());
                } else if (left.decrementAndGet() == 0) {
                    promise.trySuccess();
                }
            });
        }
    }
}
