package io.ferry.transport.spi;

import io.netty.channel.Channel;

/**
 * When a lingering close may send its end of stream: once the channel's outbound buffer holds nothing
 * ({@link LingeringChannels#unwrittenBytes}, file regions counted) and still holds nothing one turn of the
 * event loop later. Handlers write parts of what was written before the close only as earlier parts leave
 * the buffer ({@code ChunkedWriteHandler} writes its next chunk when a chunk's write completes or the channel
 * becomes writable): the turn lets such a write land before the end goes out behind it. Until the end was
 * sent the channel takes writes ({@link #isSent()}); after it, a write is past the end and fails.
 * Event-loop confined, like the channel.
 */
public final class EndOfStreamGate {

    private final Channel channel;
    private boolean checking;
    private boolean quietTurn;
    private boolean sent;

    public EndOfStreamGate(Channel channel) {
        this.channel = channel;
    }

    /**
     * True when the end of stream may go out now. Otherwise, if the buffer is empty, schedules
     * {@code recheck} for the next turn of the event loop (once), where this answers true if it stayed empty.
     */
    public boolean mayEnd(Runnable recheck) {
        if (sent) {
            return false;
        }
        if (LingeringChannels.unwrittenBytes(channel) > 0) {
            quietTurn = false;
            return false;
        }
        if (quietTurn) {
            return true;
        }
        if (!checking) {
            checking = true;
            channel.eventLoop().execute(() -> {
                checking = false;
                quietTurn = LingeringChannels.unwrittenBytes(channel) == 0;
                recheck.run();
            });
        }
        return false;
    }

    /** Records that the end of stream went out: from now on a write is past it. */
    public void markSent() {
        sent = true;
    }

    /** Whether the end of stream went out. */
    public boolean isSent() {
        return sent;
    }
}
