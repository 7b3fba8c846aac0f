package io.ferry.transport.ledbat.channel;

import io.ferry.transport.ledbat.core.UtpConnection;
import io.ferry.transport.spi.InboundQueue;

/**
 * What a uTP channel's connection delivered and its application has not read yet (event loop). Within the
 * endpoint's batch of received datagrams a read loop stays open for the batch's later packets, so a batch
 * ends in one read-complete. Bytes count against the connection's receive window until the pipeline took
 * them, or the channel dropped them.
 */
final class UtpInbound extends InboundQueue {

    private final UtpSocketChannel channel;

    UtpInbound(UtpSocketChannel channel) {
        super(channel);
        this.channel = channel;
    }

    @Override
    protected void freed(int bytes) {
        UtpConnection connection = channel.connection();
        if (connection != null) {
            connection.consumed(bytes, channel.endpoint().now());
        }
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
