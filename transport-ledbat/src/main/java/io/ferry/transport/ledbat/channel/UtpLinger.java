package io.ferry.transport.ledbat.channel;

import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.ledbat.core.ByteStreams;
import io.ferry.transport.ledbat.core.UtpConnection;
import io.ferry.transport.spi.LingeringChannels;
import io.ferry.transport.udp.engine.EngineLinger;
import io.netty.channel.ChannelPromise;

import java.time.Duration;

/**
 * uTP's graceful close ({@link EngineLinger}): the FIN is queued behind the stream, and the close
 * completes when the peer acknowledged it, or when the peer ended its side holding every byte.
 */
final class UtpLinger extends EngineLinger {

    private final UtpSocketChannel channel;

    UtpLinger(UtpSocketChannel channel, ChannelPromise first, Duration linger) {
        super(channel, first, linger);
        this.channel = channel;
    }

    @Override
    protected void progress() {
        if (ending()) {
            return;
        }
        UtpConnection connection = channel.connection();
        if (!connection.isClosed() && end.mayEnd(this::recheck)) {
            end.markSent();
            connection.close(channel.endpoint().now()); // the FIN follows the queued bytes
            channel.endpoint().afterCall(channel);
            return; // afterCall collected and checked again
        }
        ByteStreams streams = connection.streams();
        if (streams.isEndOfStreamAcknowledged()) {
            finish(null);
        } else if (connection.isClosed() && streams.isInputShutdown() && streams.unacknowledgedBytes() == 0
                && LingeringChannels.unwrittenBytes(channel) == 0) {
            finish(null); // the peer ended its side holding every byte; only our FIN went unconfirmed
        } else if (connection.isClosed()) {
            Throwable cause = connection.closeCause();
            finish(undelivered(cause != null ? "the connection failed (" + cause.getMessage() + ")"
                    : "the connection was reset"));
        }
    }

    @Override
    protected UndeliveredDataException undelivered(String why) {
        ByteStreams streams = channel.connection().streams();
        return new UndeliveredDataException(channel.remote(), streams.unacknowledgedBytes() + LingeringChannels.unwrittenBytes(channel),
                streams.isEndOfStreamAcknowledged(), false, why);
    }
}
