package io.ferry.transport.spi;

import io.ferry.transport.TransportStatistics;
import io.netty.channel.Channel;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A user-space channel's statistics, taken on its event loop, where its protocol state lives. From another thread
 * the loop is asked and waited for up to a second; a loop that is busy or gone answers with the last snapshot
 * taken, or the channel's empty statistics before the first.
 */
public final class LoopStatistics {

    private final Channel channel;
    private final UnaryOperator<TransportStatistics> take;
    private final Supplier<TransportStatistics> empty;
    private volatile TransportStatistics last;

    /**
     * @param take  the statistics now, on the event loop, given the previous snapshot (null before the first)
     * @param empty the statistics of a channel with nothing to report yet
     */
    public LoopStatistics(Channel channel, UnaryOperator<TransportStatistics> take, Supplier<TransportStatistics> empty) {
        this.channel = channel;
        this.take = take;
        this.empty = empty;
    }

    /** A snapshot; on the event loop at once, from elsewhere through it. */
    public TransportStatistics get() {
        if (!channel.eventLoop().inEventLoop()) {
            try {
                return channel.eventLoop().submit(this::snapshot).get(1, TimeUnit.SECONDS);
            } catch (Exception unavailable) {
                TransportStatistics s = last;
                return s != null ? s : empty.get();
            }
        }
        return snapshot();
    }

    private TransportStatistics snapshot() {
        TransportStatistics s = take.apply(last);
        last = s;
        return s;
    }
}
