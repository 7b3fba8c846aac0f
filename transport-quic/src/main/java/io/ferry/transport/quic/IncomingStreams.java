package io.ferry.transport.quic;

import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;

/**
 * What a peer may open on a Ferry QUIC connection: its receipt stream (unidirectional), and on a listener's
 * side the one data stream (bidirectional). The codec's stream limits already refuse anything more.
 */
final class IncomingStreams extends ChannelInitializer<QuicStreamChannel> {

    private final QuicServerChannel listener;

    /** @param listener the listener whose connections these are, or null on a client's */
    IncomingStreams(QuicServerChannel listener) {
        this.listener = listener;
    }

    @Override
    protected void initChannel(QuicStreamChannel stream) {
        if (stream.type() == QuicStreamType.UNIDIRECTIONAL) {
            stream.pipeline().addLast(new ReceiptReader());
        } else if (listener != null) {
            stream.pipeline().addLast(new StreamRelay(listener));
        } else {
            stream.close(); // a client's server opens no data stream
        }
    }
}
