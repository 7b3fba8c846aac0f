package io.ferry.transport.ledbat.channel;

import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.ledbat.core.UtpConnection;
import io.ferry.transport.spi.EndOfStreamGate;
import io.ferry.transport.spi.GracefulClose;
import io.ferry.transport.spi.LingeringChannels;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A graceful close of a {@link UtpSocketChannel} in progress (Ferry's LINGER): once the channel's own
 * buffer has drained into the connection ({@link EndOfStreamGate}: file regions and the chunks a handler
 * writes as earlier ones leave included) the FIN is queued behind it, and the close completes when the
 * peer acknowledged it, or when the peer ended its side holding every byte; it fails with
 * {@link UndeliveredDataException} if the linger runs out or the connection fails first. Every close call
 * made meanwhile joins it. Checked after every call into the connection (the channel's collect).
 */
final class UtpLinger {

    private final UtpSocketChannel channel;
    /** The close calls waiting on this close. */
    final GracefulClose waiting;
    private final Duration linger;
    private ScheduledFuture<?> expiry;
    private final EndOfStreamGate end;

    UtpLinger(UtpSocketChannel channel, ChannelPromise first, Duration linger) {
        this.channel = channel;
        this.waiting = new GracefulClose(first);
        this.linger = linger;
        this.end = new EndOfStreamGate(channel);
    }

    /** Whether the FIN was queued: a write now is past the end of the stream. */
    boolean endQueued() {
        return end.isSent();
    }

    void start() {
        expiry = channel.eventLoop().schedule(() -> {
            if (channel.isLingering(this) && !waiting.isEnding()) {
                finish(undelivered("LINGER " + linger + " ran out"));
            }
        }, linger.toNanos(), TimeUnit.NANOSECONDS);
        channel.unsafe().flush(); // what was written but not flushed belongs to the stream too
        progress();
    }

    /** Checks the close after a call into the connection. */
    void progress() {
        if (waiting.isEnding()) {
            return;
        }
        UtpConnection connection = channel.connection();
        if (!connection.isClosed() && end.mayEnd(this::recheck)) {
            end.markSent();
            connection.close(channel.endpoint().now()); // the FIN follows the queued bytes
            channel.endpoint().afterCall(channel);
            return; // afterCall collected and checked again
        }
        if (connection.isEndOfStreamAcknowledged()) {
            finish(null);
        } else if (connection.isClosed() && connection.isInputShutdown() && connection.unacknowledgedBytes() == 0
                && LingeringChannels.unwrittenBytes(channel) == 0) {
            finish(null); // the peer ended its side holding every byte; only our FIN went unconfirmed
        } else if (connection.isClosed()) {
            Throwable cause = connection.closeCause();
            finish(undelivered(cause != null ? "the connection failed (" + cause.getMessage() + ")"
                    : "the connection was reset"));
        }
    }

    /** The gate's second look, a turn of the event loop after the buffer was found empty. */
    private void recheck() {
        if (channel.isLingering(this)) {
            progress();
        }
    }

    private UndeliveredDataException undelivered(String why) {
        UtpConnection connection = channel.connection();
        return new UndeliveredDataException(channel.remote(), connection.unacknowledgedBytes() + LingeringChannels.unwrittenBytes(channel),
                connection.isEndOfStreamAcknowledged(), false, why);
    }

    private void finish(UndeliveredDataException failure) {
        ChannelPromise closed = waiting.end(channel, failure);
        expiry.cancel(false);
        UtpConnection connection = channel.connection();
        if (failure != null && !connection.isClosed()) {
            connection.abort(channel.endpoint().now());
            channel.endpoint().afterCall(channel);
        }
        channel.closeNow(closed);
    }
}
