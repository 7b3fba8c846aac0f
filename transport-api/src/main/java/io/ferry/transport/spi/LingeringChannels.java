package io.ferry.transport.spi;

import io.ferry.transport.DataLossException;
import io.ferry.transport.UndeliveredDataException;
import io.netty.channel.Channel;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.FileRegion;
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
            if (!channel.isRegistered()) {
                // never registered (its initialisation failed): nothing to linger for, and a group close would throw
                channel.unsafe().closeForcibly();
                channels.remove(channel);
            }
        }
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

    /**
     * Bytes a channel's outbound buffer still holds flushed but not yet taken by the transport, whatever the
     * message: a buffer's readable bytes, a {@link FileRegion}'s bytes not yet transferred. A lingering close
     * ends the stream only once this is zero, and one that gives up reports it as unacknowledged. Call on the
     * channel's event loop.
     */
    public static long unwrittenBytes(Channel channel) {
        ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
        if (buffer == null) {
            return 0;
        }
        long[] bytes = {0};
        try {
            buffer.forEachFlushedMessage(msg -> {
                if (msg instanceof ByteBuf) {
                    bytes[0] += ((ByteBuf) msg).readableBytes();
                } else if (msg instanceof ByteBufHolder) {
                    bytes[0] += ((ByteBufHolder) msg).content().readableBytes();
                } else if (msg instanceof FileRegion region) {
                    bytes[0] += Math.max(0, region.count() - region.transferred());
                }
                return true;
            });
        } catch (Exception cannotHappen) { // the visitor throws nothing
            throw new IllegalStateException(cannotHappen);
        }
        return bytes[0];
    }
}
