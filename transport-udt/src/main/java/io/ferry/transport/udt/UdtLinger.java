package io.ferry.transport.udt;

import com.barchart.udt.ExceptionUDT;
import com.barchart.udt.LingerUDT;
import com.barchart.udt.OptionUDT;
import com.barchart.udt.SocketUDT;
import com.barchart.udt.StatusUDT;
import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.spi.GracefulClose;
import io.ferry.transport.spi.LingeringChannels;
import io.netty.channel.ChannelPromise;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A graceful close of a {@link UdtSocketChannel} in progress (Ferry's LINGER): the channel's own buffer
 * drains into UDT, the stream is ended (the end-of-stream frame in framed mode), and the close waits,
 * polling every millisecond on the event loop, until UDT has every byte acknowledged, the peer broke the
 * connection, or the linger runs out; then every close call's promise completes, failed with
 * {@link UndeliveredDataException} if data may not have arrived.
 */
final class UdtLinger {

    /**
     * How long a graceful close stays after the last bytes it read, at least: UDT acknowledges received
     * data on its 10 ms ACK timer and repeats an acknowledgement every two round trips until the peer
     * confirms it, and a socket closed before the peer has one leaves the peer's last bytes
     * unacknowledged, so the peer's own close would report them undelivered though they were read here.
     * 100 ms, or four round trips on a longer path, covers several lost acknowledgements (25 ms, two
     * tries at 10 ms RTT, lost both about once in a hundred closes through a path with 2 % loss).
     */
    static final long ACK_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /**
     * The most a close waits after its last read for its acknowledgements to settle ({@link #acknowledgementsSettled}):
     * 1 s, or 16 round trips on a longer path.
     */
    static final long ACK_SETTLE_CAP_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How long a close waits for the acknowledgement of its end of stream by a peer that has ended its own side. */
    private static final long PEER_ENDED_FIN_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);
    private final UdtSocketChannel channel;
    private final SocketUDT socket;
    /** The close calls waiting on this close. */
    final GracefulClose waiting;
    final long deadlineNanos;
    final Duration linger;
    private UndeliveredDataException failure;
    /** When only our end-of-stream frame was left unacknowledged to a peer that had ended its side; 0 before. */
    private long finAloneSinceNanos;
    /** UDT's count of acknowledgements this socket sent, when last looked at ({@link #acknowledgementsSettled}); -1 before. */
    private long sentAcks = -1;
    /** When that count last changed. */
    private long lastAckSentNanos;

    UdtLinger(UdtSocketChannel channel, ChannelPromise first, Duration linger) {
        this.channel = channel;
        this.socket = channel.socketUDT();
        this.waiting = new GracefulClose(first);
        this.deadlineNanos = System.nanoTime() + linger.toNanos();
        this.linger = linger;
    }

    /** Waits (polling every millisecond) until the channel's outbound buffer has drained into UDT, then closes. */
    void drainThenClose() {
        boolean expired = System.nanoTime() >= deadlineNanos;
        boolean connectedStill = socket.status() == StatusUDT.CONNECTED;
        if (channel.isOpen() && connectedStill && LingeringChannels.unwrittenBytes(channel) > 0 && !expired && !channel.aborting()) {
            channel.eventLoop().schedule(this::drainThenClose, 1, TimeUnit.MILLISECONDS);
            return;
        }
        if (LingeringChannels.unwrittenBytes(channel) > 0) {
            failure = undelivered(channel.aborting() ? "the connection was aborted"
                    : expired ? "LINGER " + linger + " ran out" : "the connection broke");
        }
        closeAndComplete();
    }

    void closeAndComplete() {
        channel.closeNow(waiting.end(channel, () -> failure)); // UDT lingers inside the close
    }

    /**
     * What a failed close reports: the channel's unwritten bytes plus what UDT still holds. UDT tells
     * its send buffer in packets, so the count is an upper bound (every packet taken as full).
     */
    private UndeliveredDataException undelivered(String why) {
        long held = 0;
        try {
            held = (long) dataPacketsUnacknowledged() * (channel.config().settings().mss - UdtSettings.HEADERS);
        } catch (ExceptionUDT | RuntimeException gone) {
            // the socket is gone: only the unwritten part is known
        }
        return new UndeliveredDataException(channel.remoteAddress(), LingeringChannels.unwrittenBytes(channel) + held, false, true, why);
    }

    /**
     * Packets of application data UDT still holds unacknowledged. UDT acknowledges in order, and in
     * framed mode the end-of-stream frame is the last packet queued, so once it was sent it is one of
     * the packets counted and the others are data.
     */
    private int dataPacketsUnacknowledged() throws ExceptionUDT {
        int packets = Math.max(0, socket.getOption(OptionUDT.UDT_SNDDATA));
        return channel.framed() && channel.finSent() ? Math.max(0, packets - 1) : packets;
    }

    void lingerThen(long deadline, Runnable closeTask) {
        boolean done;
        try {
            done = lingerDone(deadline);
        } catch (ExceptionUDT | RuntimeException e) {
            done = true;
        }
        if (done) {
            closeTask.run();
        } else {
            channel.eventLoop().schedule(() -> lingerThen(deadline, closeTask), 1, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * True once the stream is ended and UDT has every byte acknowledged, or the deadline has passed, or
     * the connection broke; the last two record the close's failure.
     */
    private boolean lingerDone(long deadline) throws ExceptionUDT {
        if (channel.aborting()) { // an abort cuts a lingering close short
            if (socket.getOption(OptionUDT.UDT_SNDDATA) > 0 || LingeringChannels.unwrittenBytes(channel) > 0) {
                giveUp("the connection was aborted");
            }
            return true;
        }
        boolean expired = System.nanoTime() >= deadline;
        if (socket.status() != StatusUDT.CONNECTED) {
            return brokenAfter();
        }
        if (channel.framed()) {
            boolean ended;
            try {
                ended = channel.trySendFin();
            } catch (IOException unfinishedFrame) {
                if (unfinishedFrame.getCause() instanceof ExceptionUDT && channel.outFrameRemaining() == 0) {
                    // the peer closed between the status read above and this send (Netty's FileRegion
                    // test on a CI run: its server closed first, auto-read off here)
                    return brokenAfter();
                }
                giveUp(unfinishedFrame.getMessage());
                return true;
            }
            if (!ended) {
                if (expired) {
                    giveUp("LINGER " + linger + " ran out");
                }
                return expired;
            }
        }
        if (socket.getOption(OptionUDT.UDT_SNDDATA) == 0) {
            // all ours is acknowledged; stay until the peer has our acknowledgement of what we last read
            return expired || acknowledgementsSettled();
        }
        if (channel.finReceived() && dataPacketsUnacknowledged() == 0) {
            // The peer ended its side and acknowledged every byte of ours; only our end of stream is open.
            // UDT has no TIME_WAIT: a peer whose own close completed has no socket left to acknowledge it,
            // and waiting out the linger would fail a close that lost nothing. UDT resends it after the
            // close for one second more (its runtime's cleanup waits for that) to a peer still reading.
            long now = System.nanoTime();
            if (finAloneSinceNanos == 0) {
                finAloneSinceNanos = now;
            } else if (now - finAloneSinceNanos >= Math.max(PEER_ENDED_FIN_WAIT_NANOS, ackGraceNanos())) {
                socket.setOption(OptionUDT.UDT_LINGER, new LingerUDT(1));
                return true;
            }
        }
        if (expired) {
            giveUp("LINGER " + linger + " ran out");
        }
        return expired;
    }

    /**
     * The connection broke while the close lingered, usually because the peer closed. If every byte of
     * data was acknowledged, only our end-of-stream frame may be missing there, sent or not: it is not
     * data, and like a peer that ended its side holding everything, the close delivered what it had.
     */
    private boolean brokenAfter() throws ExceptionUDT {
        if (channel.outFrameRemaining() > 0 || dataPacketsUnacknowledged() > 0 || LingeringChannels.unwrittenBytes(channel) > 0) {
            giveUp("the connection broke");
        }
        return true;
    }

    /**
     * Whether the peer has our acknowledgement of the last bytes we read, as far as UDT lets us see: UDT4
     * repeats an acknowledgement every RTT + 4 RTTVar until the peer confirms it (ACK2), then sends none, so
     * a socket that has sent no acknowledgement for five round trips and two ACK intervals since the grace
     * after its last read ({@link #ackGraceNanos}) has had its last one confirmed. A fixed grace alone lost the
     * race through 25 % loss each way: the peer read everything, closed, and our close saw a broken connection
     * with up to 750 KB unacknowledged (UdtOverLossyPathsTest, 2 runs in 23). Bounded by {@link #ACK_SETTLE_CAP_NANOS}.
     */
    private boolean acknowledgementsSettled() throws ExceptionUDT {
        long now = System.nanoTime();
        long sinceRead = now - channel.lastReadNanos();
        if (sinceRead < ackGraceNanos()) { // (which reads UDT's monitor)
            return false;
        }
        double rttMillis = socket.monitor().currentMillisRTT();
        long sent = socket.monitor().globalSentAckTotal();
        if (sent != sentAcks) {
            sentAcks = sent;
            lastAckSentNanos = now;
        }
        long quiet = (long) ((5 * rttMillis + 2 * RepairTimeout.SYN_MS) * 1e6); // RTT + 4 RTTVar, RTTVar taken as a round trip
        long cap = Math.max(ACK_SETTLE_CAP_NANOS, (long) (16 * rttMillis * 1e6));
        return now - lastAckSentNanos >= quiet || sinceRead >= cap;
    }

    private long ackGraceNanos() {
        try {
            socket.updateMonitor(false);
            return Math.max(ACK_GRACE_NANOS, (long) (4 * socket.monitor().currentMillisRTT() * 1e6));
        } catch (ExceptionUDT gone) {
            return ACK_GRACE_NANOS;
        }
    }

    private void giveUp(String why) throws ExceptionUDT {
        if (failure == null) {
            failure = undelivered(why);
        }
        channel.dropUnsent();
    }
}
