package io.ferry.transport.quic;

import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.quic.QuicStreamChannel;

/**
 * Sends a codec stream's FIN behind every byte handed to it. The codec writes a FIN at once, ahead of the
 * bytes it queued because quiche would not take them yet: a stream's capacity counts the connection's window,
 * which another stream of the connection may have used since it was read, so a write sized to it can still
 * queue, and the peer would see the stream end short. So the FIN waits for the last handed write, which
 * completes after every earlier one (the codec's queue is in order); if that write fails, the channel fails
 * and no FIN goes. Netty's HTTP/3 codec orders its FIN behind its writes the same way. Confined to the
 * stream's loop.
 */
final class StreamEnd {

    /** The last write handed to the stream while it is pending, else null. */
    private ChannelFuture pending;

    /** {@code write} was just handed to the stream. */
    void handed(ChannelFuture write) {
        if (!write.isDone()) {
            pending = write;
            write.addListener(f -> {
                if (pending == f) {
                    pending = null;
                }
            });
        }
    }

    /** Ends {@code stream} now, or once the last handed write has gone into it. */
    void end(QuicStreamChannel stream) {
        if (pending == null) {
            stream.shutdownOutput();
        } else {
            pending.addListener(f -> {
                if (f.isSuccess()) {
                    stream.shutdownOutput();
                }
            });
        }
    }
}
