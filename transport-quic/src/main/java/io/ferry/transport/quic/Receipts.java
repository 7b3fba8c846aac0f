package io.ferry.transport.quic;

import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;

/**
 * Both sides of one connection's receipts ({@link QuicWire}): what this end received and still has to
 * report, sent on its own unidirectional stream every {@link #EVERY} bytes and at the end of stream, and what
 * the peer confirmed of the bytes this end handed to QUIC. Event-loop confined, like its channel.
 */
final class Receipts {

    /** Bytes between two receipts: 8 bytes of overhead per 256 KiB, and a dead path's shortfall known to that much. */
    static final long EVERY = 256 << 10;
    /**
     * The longest a received byte waits for its receipt when no more follow (TCP's delayed ACK is 40 ms): a
     * peer that writes a little and closes, or whose peer exits, learns of its delivery at once.
     */
    static final long DELAY_MILLIS = 20;

    private long received;
    private boolean endReceived;
    private long reported;
    private boolean endReported;
    private QuicStreamChannel out;
    private boolean opening;
    /** The data stream these receipts report on, named at the head of the receipt stream; -1 before it exists. */
    private long dataStream = -1;
    private io.netty.util.concurrent.ScheduledFuture<?> delayed;

    private long handed;
    private long confirmed;
    private boolean endConfirmed;

    // ------------------------------------------------------------------ this end as receiver

    /** The data stream is {@code streamId}: the receipt stream, once opened, names it first. */
    void reportOn(long streamId) {
        dataStream = streamId;
    }

    /** {@code bytes} of the peer's stream arrived. */
    void received(QuicChannel quic, long bytes) {
        received += bytes;
        if (received - reported >= EVERY) {
            report(quic);
        } else if (delayed == null) {
            delayed = quic.eventLoop().schedule(() -> {
                delayed = null;
                report(quic);
            }, DELAY_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }

    /** The peer's end of stream arrived: the final receipt goes at once. */
    void endReceived(QuicChannel quic) {
        endReceived = true;
        report(quic);
    }

    /** Bytes of the peer's stream received so far. */
    long received() {
        return received;
    }

    /**
     * Sends the latest receipt again, changed or not: a connection that carries nothing else stays alive
     * through its idle timeout this way (each end does it every third of that timeout).
     */
    void keepAlive(QuicChannel quic) {
        if (out != null && out.isActive()) {
            out.writeAndFlush(QuicWire.receipt(out.alloc(), reported, endReported))
                    .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        } else {
            report(quic);
        }
    }

    private void report(QuicChannel quic) {
        if (out != null) {
            sendLatest();
            return;
        }
        if (opening || dataStream < 0 || !quic.isActive()) {
            return;
        }
        opening = true;
        quic.createStream(QuicStreamType.UNIDIRECTIONAL, null).addListener(f -> {
            if (f.isSuccess()) {
                out = (QuicStreamChannel) f.getNow();
                out.write(QuicWire.receiptHeader(out.alloc(), dataStream));
                reported = -1; // the first receipt goes even if it reports nothing new
                sendLatest();
            }
            // else the connection is going: nobody waits for a receipt any more
        });
    }

    private void sendLatest() {
        if (!out.isActive() || (reported == received && endReported == endReceived)) {
            return;
        }
        if (delayed != null) {
            delayed.cancel(false);
            delayed = null;
        }
        reported = received;
        endReported = endReceived;
        out.writeAndFlush(QuicWire.receipt(out.alloc(), received, endReceived))
                .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    }

    // ------------------------------------------------------------------ this end as sender

    /** {@code bytes} of the application's stream went to QUIC. */
    void handed(long bytes) {
        handed += bytes;
    }

    /** A receipt from the peer. */
    void confirm(long receipt) {
        confirmed = Math.max(confirmed, QuicWire.receivedOf(receipt));
        endConfirmed |= QuicWire.endOfStreamOf(receipt);
    }

    /** The peer said, by closing the connection with no error, that it has the whole stream and its end. */
    void confirmAll() {
        confirmed = handed;
        endConfirmed = true;
    }

    /** Bytes handed to QUIC that the peer has not confirmed. */
    long unconfirmed() {
        return handed - confirmed;
    }

    /** Whether the peer confirmed the end of stream and every byte before it. */
    boolean endConfirmed() {
        return endConfirmed && confirmed >= handed;
    }

    long handed() {
        return handed;
    }
}
