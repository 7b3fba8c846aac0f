package io.ferry.transport.striped;

import io.ferry.transport.spi.EndOfStreamGate;
import io.ferry.transport.spi.GracefulClose;
import io.netty.channel.ChannelPromise;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A graceful close of a {@link StripedChannel} in progress (Ferry's LINGER): what is queued goes to the members
 * as they take it, and so does what a handler writes meanwhile as earlier parts leave ({@link EndOfStreamGate});
 * once nothing is left the members close, each lingering for its own acknowledgements ({@link StripedClose}).
 * Members too slow to take it all within the linger, a failed member and an abort cut the hand-over short: the
 * members get the rest at once, and their closes tell what they could not deliver. Every close call made
 * meanwhile joins it. Striped event loop only.
 */
final class StripedLinger {

    /** The close calls waiting on this close. */
    final GracefulClose waiting;
    private final StripedChannel channel;
    private final EndOfStreamGate end;

    StripedLinger(StripedChannel channel, ChannelPromise first) {
        this.channel = channel;
        this.waiting = new GracefulClose(first);
        this.end = new EndOfStreamGate(channel);
    }

    /** Starts handing over what is queued, for at most {@code linger}; at once to the members' closes when nothing can be written. */
    void start(Duration linger) {
        if (!channel.flushForClose()) {
            closeMembers();
            return;
        }
        channel.eventLoop().schedule(() -> {
            if (channel.isLingering(this)) {
                cutShort();
            }
        }, linger.toNanos(), TimeUnit.NANOSECONDS);
        progress();
    }

    /** Whether the members' closes started: a write now is past the end of the stream. */
    boolean endSent() {
        return end.isSent();
    }

    /** After a write or a member's writability: the members close once the gate finds nothing left to hand them. */
    void progress() {
        if (!end.isSent() && channel.isOpen() && end.mayEnd(this::progress)) {
            closeMembers();
        }
    }

    /** Ends the hand-over now: the members take the rest at once, and their closes tell what was lost. */
    void cutShort() {
        if (!end.isSent()) {
            closeMembers();
        }
    }

    private void closeMembers() {
        end.markSent();
        channel.closeMembers();
    }
}
