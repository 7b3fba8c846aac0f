package io.ferry.transport.udt;

import io.ferry.transport.spi.InboundQueue;

/**
 * What a UDT channel's connection delivered and its application has not read yet (event loop). Bytes
 * count against the connection's receive buffer until the pipeline took them, or the channel dropped them.
 */
final class UdtInbound extends InboundQueue {

    private final UdtSocketChannel channel;

    UdtInbound(UdtSocketChannel channel) {
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

    @Override
    public boolean moreMayCome() {
        return channel.inReadBatch || bytesQueued();
    }

    @Override
    public boolean batchContinues() {
        return channel.inReadBatch;
    }
}
