package io.ferry.transport.quic;

import io.ferry.transport.spi.InboundQueue;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.quic.QuicStreamChannel;

/**
 * What a QUIC channel's stream delivered and its application has not read yet. The stream is read ahead
 * until {@link #PAUSE_AT} bytes wait here, then paused (quiche then returns no flow-control credit, so the
 * sender stops), and read again below {@link #RESUME_AT}.
 */
final class QuicInbound extends InboundQueue {

    /** Bytes read ahead from the stream for the pipeline before the stream stops being read (its window then closes). */
    static final long PAUSE_AT = 1 << 20;
    static final long RESUME_AT = 256 << 10;

    private final QuicSocketChannel channel;
    private long queued;
    private QuicStreamChannel paused;

    QuicInbound(QuicSocketChannel channel) {
        super(channel);
        this.channel = channel;
    }

    /** Queues bytes from {@code stream}, pausing it once {@link #PAUSE_AT} wait. */
    void add(ByteBuf data, QuicStreamChannel stream) {
        add(data);
        queued += data.readableBytes();
        if (queued > PAUSE_AT && paused == null) {
            paused = stream;
            stream.config().setAutoRead(false);
        }
    }

    /** Reads the stream again if it was paused and little waits (after a delivery, or the queue's release). */
    void resumeIfDrained() {
        if (paused != null && queued < RESUME_AT) {
            QuicStreamChannel stream = paused;
            paused = null; // first: reading again may bring enough to pause it again at once
            stream.config().setAutoRead(true);
        }
    }

    @Override
    protected void freed(int bytes) {
        queued -= bytes;
    }

    @Override
    public boolean accepting() {
        return channel.acceptsInbound();
    }

    @Override
    public void endOfInput() {
        channel.inputEnded();
    }

    @Override
    public boolean moreMayCome() {
        return !isEmpty();
    }

    @Override
    public boolean batchContinues() {
        return false;
    }
}
