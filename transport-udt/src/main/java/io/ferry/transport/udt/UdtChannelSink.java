package io.ferry.transport.udt;

import io.ferry.transport.ledbat.core.ConnectionSink;
import io.netty.buffer.ByteBuf;

/** The UDT core's outputs for one {@link UdtSocketChannel}: datagrams to its endpoint, events and bytes to the channel. */
final class UdtChannelSink implements ConnectionSink {

    private final UdtSocketChannel channel;

    UdtChannelSink(UdtSocketChannel channel) {
        this.channel = channel;
    }

    @Override
    public void send(ByteBuf packet) {
        channel.endpoint().send(packet, channel.remote());
    }

    @Override
    public void connected() {
        channel.onConnected();
    }

    @Override
    public void data(ByteBuf payload) {
        channel.onData(payload);
    }

    @Override
    public void endOfStream() {
        channel.onEndOfStream();
    }

    @Override
    public void writabilityChanged(boolean writable) {
        channel.onWritabilityChanged(writable);
    }

    @Override
    public void closed(Throwable causeOrNull) {
        channel.onClosed(causeOrNull);
    }
}
