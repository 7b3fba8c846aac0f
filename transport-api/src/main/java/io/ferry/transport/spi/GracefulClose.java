package io.ferry.transport.spi;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The close calls waiting on one graceful close of a stream channel. Netty's own close completes a
 * channel's promises when its socket closes; a Ferry channel first lingers until the peer has every byte,
 * so every {@code close()} made meanwhile joins the one in progress, and all of them complete together
 * once the channel has really closed: successfully, or failed with why the stream did not end cleanly
 * (an {@link io.ferry.transport.UndeliveredDataException}). Event-loop confined, like the channel.
 */
public final class GracefulClose {

    private final List<ChannelPromise> joined = new ArrayList<>(2);
    private boolean ending;
    private boolean done;

    /** A graceful close started by a {@code close()} with {@code first}. */
    public GracefulClose(ChannelPromise first) {
        join(first);
    }

    /**
     * Makes a {@code close()} with {@code promise} wait for this close; false once the close has completed
     * (the channel is closed: Netty's own close answers it). A void promise waits unanswered.
     */
    public boolean join(ChannelPromise promise) {
        if (done) {
            return false;
        }
        if (!promise.isVoid() && promise.setUncancellable()) {
            joined.add(promise);
        }
        return true;
    }

    /** Whether {@link #end} was called: the lingering is over and the channel is closing. */
    public boolean isEnding() {
        return ending;
    }

    /**
     * Ends the lingering: the returned promise goes to the channel's own close, and once it completes
     * every joined close completes, failed with {@code failure} unless it is null.
     */
    public ChannelPromise end(Channel channel, Throwable failure) {
        return end(channel, () -> failure);
    }

    /**
     * As {@link #end(Channel, Throwable)}, for a channel that learns only while its own close runs whether
     * the stream ended cleanly (UDT lingers inside it): {@code failure} is asked once that close completes.
     */
    public ChannelPromise end(Channel channel, Supplier<? extends Throwable> failure) {
        if (ending) {
            throw new IllegalStateException("the graceful close of " + channel + " has already ended");
        }
        ending = true;
        ChannelPromise closed = channel.newPromise();
        closed.addListener(f -> {
            done = true;
            Throwable cause = failure.get();
            for (ChannelPromise p : joined) {
                if (cause == null) {
                    p.trySuccess();
                } else {
                    p.tryFailure(cause);
                }
            }
        });
        return closed;
    }
}
