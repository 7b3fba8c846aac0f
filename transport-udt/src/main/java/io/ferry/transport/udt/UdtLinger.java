package io.ferry.transport.udt;

import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.spi.EndOfStreamGate;
import io.ferry.transport.spi.GracefulClose;
import io.ferry.transport.spi.LingeringChannels;
import io.ferry.transport.udt.proto.core.UdtConnection;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A graceful close of a {@link UdtSocketChannel} in progress (Ferry's LINGER): once the channel's own
 * buffer has drained into the connection ({@link EndOfStreamGate}) the end of the stream is queued behind
 * it (framed mode: the zero-length frame) and the connection closes, sending UDT's shutdown when the
 * peer has acknowledged every byte. A peer that ended its own side and holds every byte need not
 * confirm the end of our stream (it may be gone). The close completes then, and fails with
 * {@link UndeliveredDataException} if the linger runs out, the connection fails, or the peer shut down
 * first with bytes of ours unacknowledged. Checked after every call into the connection.
 */
final class UdtLinger {

    private final UdtSocketChannel channel;
    /** The close calls waiting on this close. */
    final GracefulClose waiting;
    private final Duration linger;
    private final EndOfStreamGate end;
    private ScheduledFuture<?> expiry;
    private ScheduledFuture<?> graceCheck;
    /** The least wait for the acknowledgement of our end of stream by a peer that ended its own side. */
    static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    UdtLinger(UdtSocketChannel channel, ChannelPromise first, Duration linger) {
        this.channel = channel;
        this.waiting = new GracefulClose(first);
        this.linger = linger;
        this.end = new EndOfStreamGate(channel);
    }

    /** Whether the end of the stream was queued: a write now is past it. */
    boolean endQueued() {
        return end.isSent();
    }

    void start() {
        expiry = channel.eventLoop().schedule(() -> {
            if (channel.isLingering(this) && !waiting.isEnding()) {
                finish(undelivered("LINGER " + linger + " ran out"));
            }
        }, linger.toNanos(), TimeUnit.NANOSECONDS);
        channel.unsafe().flush();
        progress();
    }

    /** Checks the close after a call into the connection. */
    void progress() {
        if (waiting.isEnding()) {
            return;
        }
        UdtConnection connection = channel.connection();
        if (connection.phase() == UdtConnection.Phase.CONNECTED && end.mayEnd(this::recheck)) {
            end.markSent();
            long now = channel.endpoint().now();
            if (channel.framing().framed()) {
                if (!channel.endWritten()) {
                    channel.markEndWritten();
                    connection.write(UdtFraming.endOfStream(channel.alloc()));
                    channel.framingSent(UdtFraming.HEADER);
                }
                connection.flush(now); // the close completes once the peer acknowledged our end (below)
            } else {
                connection.flush(now);
                connection.close(linger.toNanos(), now); // no end of stream but UDT's shutdown
            }
            channel.endpoint().afterCall(channel);
            return;
        }
        if (channel.framing().framed() && end.isSent() && connection.phase() == UdtConnection.Phase.CONNECTED
                && connection.bufferedBytes() == 0 && LingeringChannels.unwrittenBytes(channel) == 0) {
            finish(null); // the peer holds everything, our end of stream included
            return;
        }
        if (graceCheck == null && end.isSent() && channel.framing().endSeen()
                && connection.bufferedBytes() <= UdtFraming.HEADER && LingeringChannels.unwrittenBytes(channel) == 0) {
            // The peer ended its side and holds every byte of ours: only our end-of-stream frame is
            // unconfirmed, and a peer whose own close completed has no socket left to confirm it (UDT has
            // no TIME_WAIT). A few round trips for its acknowledgement, then the close is complete.
            long grace = Math.max(GRACE_NANOS, 4_000L * connection.rttMicros());
            graceCheck = channel.eventLoop().schedule(() -> {
                if (channel.isLingering(this) && !waiting.isEnding()) {
                    finish(null);
                }
            }, grace, TimeUnit.NANOSECONDS);
        }
        if (connection.phase() == UdtConnection.Phase.CLOSED) {
            Throwable cause = connection.closeCause();
            if (cause != null) {
                finish(undelivered("the connection failed (" + cause.getMessage() + ")"));
            } else if (connection.unacknowledgedAtShutdown() > 0) {
                finish(undelivered("the peer shut down before acknowledging everything"));
            } else {
                finish(null);
            }
        }
    }

    private void recheck() {
        if (channel.isLingering(this)) {
            progress();
        }
    }

    private UndeliveredDataException undelivered(String why) {
        UdtConnection connection = channel.connection();
        long pending = Math.max(connection.bufferedBytes(), connection.unacknowledgedAtShutdown());
        return new UndeliveredDataException(channel.remote(), pending + LingeringChannels.unwrittenBytes(channel),
                false, false, why);
    }

    private void finish(UndeliveredDataException failure) {
        ChannelPromise closed = waiting.end(channel, failure);
        expiry.cancel(false);
        if (graceCheck != null) {
            graceCheck.cancel(false);
        }
        UdtConnection connection = channel.connection();
        if (failure != null && connection.phase() != UdtConnection.Phase.CLOSED) {
            connection.abort(channel.endpoint().now());
            channel.endpoint().afterCall(channel);
        }
        channel.closeNow(closed);
    }
}
