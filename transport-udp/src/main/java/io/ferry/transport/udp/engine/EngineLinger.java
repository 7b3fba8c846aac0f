package io.ferry.transport.udp.engine;

import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.ledbat.core.EngineConnection;
import io.ferry.transport.spi.EndOfStreamGate;
import io.ferry.transport.spi.GracefulClose;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A graceful close of an {@link EngineChannel} in progress (Ferry's LINGER): once the channel's own buffer
 * has drained into the connection ({@link EndOfStreamGate}: file regions and the chunks a handler writes as
 * earlier ones leave included) the wire's end of the stream is queued behind it, and the close completes
 * when the peer confirmed what the wire requires, or fails with {@link UndeliveredDataException} if the
 * linger runs out or the connection fails first (the connection is then reset). Every close call made
 * meanwhile joins it. When the close is complete is each wire's rule ({@link #progress}), asked after every
 * call into the connection.
 */
public abstract class EngineLinger {

    private final EngineChannel<?, ?> channel;
    private final GracefulClose waiting;
    /** How long the close may take. */
    protected final Duration linger;
    /** Whether the end of the stream may be queued yet, and whether it was. */
    protected final EndOfStreamGate end;
    private ScheduledFuture<?> expiry;

    protected EngineLinger(EngineChannel<?, ?> channel, ChannelPromise first, Duration linger) {
        this.channel = channel;
        this.waiting = new GracefulClose(first);
        this.linger = linger;
        this.end = new EndOfStreamGate(channel);
    }

    /**
     * Checks the close after a call into the connection: queues the end once {@link #end} allows it, and
     * {@link #finish finishes} when the wire says the close is complete or failed.
     */
    protected abstract void progress();

    /** The failure to report, naming what the peer may not have. */
    protected abstract UndeliveredDataException undelivered(String why);

    /** The close finished; a wire cancels what it scheduled of its own. Default nothing. */
    protected void finished() {
    }

    /** Whether the end of the stream was queued: a write now is past it. */
    public final boolean endQueued() {
        return end.isSent();
    }

    final GracefulClose waiting() {
        return waiting;
    }

    final void start() {
        expiry = channel.eventLoop().schedule(() -> {
            if (stillWaiting()) {
                finish(undelivered("LINGER " + linger + " ran out"));
            }
        }, linger.toNanos(), TimeUnit.NANOSECONDS);
        channel.unsafe().flush(); // what was written but not flushed belongs to the stream too
        progress();
    }

    /** Whether this close is still the channel's and not yet ending. */
    protected final boolean stillWaiting() {
        return channel.isLingering(this) && !waiting.isEnding();
    }

    /** Whether the close is ending (a result was decided). */
    protected final boolean ending() {
        return waiting.isEnding();
    }

    /** The gate's second look, a turn of the event loop after the buffer was found empty. */
    protected final void recheck() {
        if (channel.isLingering(this)) {
            progress();
        }
    }

    /** Ends the close: the waiting close calls complete ({@code failure} null) or fail, the connection is reset on failure. */
    protected final void finish(UndeliveredDataException failure) {
        ChannelPromise closed = waiting.end(channel, failure);
        expiry.cancel(false);
        finished();
        EngineConnection connection = channel.connection;
        if (failure != null && !connection.isClosed()) {
            connection.abort(channel.endpoint.now());
            channel.endpoint.afterCall(channel);
        }
        channel.closeNow(closed);
    }
}
