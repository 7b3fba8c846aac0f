package io.ferry.transport.udt;

import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.spi.LingeringChannels;
import io.ferry.transport.udp.engine.EngineLinger;
import io.ferry.transport.udt.proto.core.UdtConnection;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * UDT's graceful close ({@link EngineLinger}): the end of the stream is queued behind what was written
 * (framed mode: the zero-length frame) and the connection closes, sending UDT's shutdown when the peer has
 * acknowledged every byte. A peer that ended its own side and holds every byte need not confirm the end of
 * our stream (it may be gone). The close fails if the peer shut down first with bytes of ours unacknowledged.
 */
final class UdtLinger extends EngineLinger {

    /** The least wait for the acknowledgement of our end of stream by a peer that ended its own side. */
    static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final UdtSocketChannel channel;
    private ScheduledFuture<?> graceCheck;

    UdtLinger(UdtSocketChannel channel, ChannelPromise first, Duration linger) {
        super(channel, first, linger);
        this.channel = channel;
    }

    @Override
    protected void progress() {
        if (ending()) {
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
                if (stillWaiting()) {
                    finish(null);
                }
            }, grace, TimeUnit.NANOSECONDS);
        }
        if (connection.isClosed()) {
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

    @Override
    protected UndeliveredDataException undelivered(String why) {
        UdtConnection connection = channel.connection();
        long pending = Math.max(connection.bufferedBytes(), connection.unacknowledgedAtShutdown());
        return new UndeliveredDataException(channel.remote(), pending + LingeringChannels.unwrittenBytes(channel),
                false, false, why);
    }

    @Override
    protected void finished() {
        if (graceCheck != null) {
            graceCheck.cancel(false);
        }
    }
}
