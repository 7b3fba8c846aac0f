package io.ferry.transport.udp.engine;

import io.ferry.transport.spi.InboundQueue;

/**
 * What a channel's connection delivered and its application has not read yet (event loop). Within the
 * endpoint's batch of received datagrams a read loop stays open for the batch's later packets, so a batch
 * ends in one read-complete. Bytes count against the connection's receive window until the pipeline took
 * them, or the channel dropped them.
 */
final class EngineInbound extends InboundQueue {

    private final EngineChannel<?, ?> channel;

    EngineInbound(EngineChannel<?, ?> channel) {
        super(channel);
        this.channel = channel;
    }

    @Override
    protected void freed(int bytes) {
        channel.consumed(bytes);
    }

    @Override
    public boolean accepting() {
        return channel.acceptsInbound();
    }

    @Override
    public void endOfInput() {
        channel.endOfInput();
    }

    /** Whether a read loop may get more bytes now: some are queued, or the endpoint's batch may bring more. */
    @Override
    public boolean moreMayCome() {
        return channel.inReadBatch || bytesQueued();
    }

    @Override
    public boolean batchContinues() {
        return channel.inReadBatch;
    }
}
