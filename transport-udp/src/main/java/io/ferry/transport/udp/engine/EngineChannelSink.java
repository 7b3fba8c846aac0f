package io.ferry.transport.udp.engine;

import io.ferry.transport.ledbat.core.ConnectionSink;
import io.netty.buffer.ByteBuf;

/**
 * The protocol core's outputs for one {@link EngineChannel}, collected on its event loop after each call
 * into the core: datagrams go to the channel's endpoint, events and payload to the channel.
 */
final class EngineChannelSink implements ConnectionSink {

    private final EngineChannel<?, ?> channel;

    EngineChannelSink(EngineChannel<?, ?> channel) {
        this.channel = channel;
    }

    @Override
    public void send(ByteBuf packet) {
        channel.endpoint.send(packet, channel.remote);
    }

    @Override
    public void sendPart(ByteBuf whole, int offset, int length) {
        channel.endpoint.sendPart(whole, offset, length, channel.remote);
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
