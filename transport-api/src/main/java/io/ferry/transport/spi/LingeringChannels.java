package io.ferry.transport.spi;

import io.ferry.transport.DataLossException;
import io.ferry.transport.UndeliveredDataException;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.ChannelGroupFuture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * How a transport's {@code close()} closes the channels it still has: gracefully, waiting for each
 * close to finish within its linger, and collecting what could not be delivered.
 */
public final class LingeringChannels {

    /** Time allowed beyond the longest linger, for the reset and the socket's own close. */
    private static final long MARGIN_MILLIS = 5_000;

    private LingeringChannels() {
    }

    /**
     * Closes every channel of {@code channels} and waits until every close has completed, at most the
     * longest linger among them plus a few seconds.
     *
     * @param channels the transport's channels (listeners and connections)
     * @param linger   a channel's linger (zero for listeners and for channels without one)
     * @return the losses: each close that failed with {@link UndeliveredDataException}, in no order
     */
    public static List<UndeliveredDataException> closeAll(ChannelGroup channels, Function<Channel, Duration> linger) {
        long waitMillis = 0;
        for (Channel channel : channels) {
            waitMillis = Math.max(waitMillis, linger.apply(channel).toMillis());
        }
        ChannelGroupFuture closing = channels.close();
        closing.awaitUninterruptibly(waitMillis + MARGIN_MILLIS);
        List<UndeliveredDataException> losses = new ArrayList<>();
        for (ChannelFuture f : closing) {
            if (f.isDone() && f.cause() instanceof UndeliveredDataException) {
                losses.add((UndeliveredDataException) f.cause());
            }
        }
        return losses;
    }

    /** Throws a {@link DataLossException} for {@code losses}, if there are any. */
    public static void report(List<UndeliveredDataException> losses) {
        if (!losses.isEmpty()) {
            throw new DataLossException(losses);
        }
    }
}
