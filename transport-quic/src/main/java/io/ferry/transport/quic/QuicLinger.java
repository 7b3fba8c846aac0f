package io.ferry.transport.quic;

import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.spi.EndOfStreamGate;
import io.ferry.transport.spi.GracefulClose;
import io.ferry.transport.spi.LingeringChannels;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A graceful close of a {@link QuicSocketChannel} in progress (Ferry's LINGER): once the channel's outbound
 * buffer has drained into the stream ({@link EndOfStreamGate}: file regions and the chunks a handler writes as
 * earlier ones leave included) the stream ends behind it, and the close completes when the peer's
 * receipt confirms the end of stream and every byte; it fails with {@link UndeliveredDataException} (counting
 * the bytes no receipt confirmed, an upper bound) if the linger runs out, the peer stops reading or the
 * connection ends first. Every close call made meanwhile joins it.
 */
final class QuicLinger {

    private final QuicSocketChannel channel;
    /** The close calls waiting on this close. */
    final GracefulClose waiting;
    private final Duration linger;
    private ScheduledFuture<?> expiry;
    private final EndOfStreamGate end;

    QuicLinger(QuicSocketChannel channel, ChannelPromise first, Duration linger) {
        this.channel = channel;
        this.waiting = new GracefulClose(first);
        this.linger = linger;
        this.end = new EndOfStreamGate(channel);
    }

    void start() {
        expiry = channel.eventLoop().schedule(() -> failed("LINGER " + linger + " ran out"), linger.toNanos(), TimeUnit.NANOSECONDS);
        channel.unsafe().flush(); // what was written but not flushed belongs to the stream too
        progress();
    }

    /** Checks the close after each step: a write, a receipt, the connection's end. */
    void progress() {
        if (waiting.isEnding()) {
            return;
        }
        if (!channel.endOfStreamSent() && !channel.isConnectionClosed() && end.mayEnd(this::recheck)) {
            end.markSent();
            channel.sendEndOfStream();
        }
        Receipts r = channel.receipts();
        if (r.endConfirmed()) {
            finish(null);
        } else if (channel.isConnectionClosed()) {
            if (r.unconfirmed() == 0 && LingeringChannels.unwrittenBytes(channel) == 0) {
                finish(null); // the peer had every byte and went; only the end of stream went unconfirmed (as uTP)
            } else {
                finish(undelivered("the QUIC connection ended"));
            }
        }
    }

    /** The gate's second look, a turn of the event loop after the buffer was found empty. */
    private void recheck() {
        if (channel.isLingering(this)) {
            progress();
        }
    }

    /** Gives up: the close fails naming what no receipt confirmed. */
    void failed(String why) {
        if (channel.isLingering(this) && !waiting.isEnding()) {
            finish(undelivered(why));
        }
    }

    private UndeliveredDataException undelivered(String why) {
        Receipts r = channel.receipts();
        return new UndeliveredDataException(channel.remote(), r.unconfirmed() + LingeringChannels.unwrittenBytes(channel),
                false, true, why);
    }

    private void finish(UndeliveredDataException failure) {
        ChannelPromise closed = waiting.end(channel, failure);
        if (expiry != null) {
            expiry.cancel(false);
        }
        channel.closeNow(closed);
    }
}
