package io.ferry.transport.quic;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.quic.QuicStreamChannel;

/**
 * The handler on the codec's data stream: hands its bytes, its end and its writability to the
 * {@link QuicSocketChannel} that presents it. On a listener's side the stream first has to show Ferry's
 * preamble ({@link QuicWire}); only then does the listener make the connection, so a peer that is not
 * Ferry's never reaches the application.
 */
final class StreamRelay extends ChannelInboundHandlerAdapter {

    private QuicSocketChannel owner;
    private final QuicServerChannel listener;
    private int preambleSeen;
    private int preamble;

    /** A client's stream, presented by {@code owner}. */
    StreamRelay(QuicSocketChannel owner) {
        this.owner = owner;
        this.listener = null;
    }

    /** A stream a peer opened to {@code listener}. */
    StreamRelay(QuicServerChannel listener) {
        this.owner = null;
        this.listener = listener;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        ctx.channel().config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf data = (ByteBuf) msg;
        if (owner == null && !takePreamble(ctx, data)) {
            return;
        }
        if (data.isReadable()) {
            owner.streamRead(data);
        } else {
            data.release();
        }
    }

    /** Reads the preamble off the front of {@code data}; true once it is complete and the connection exists. */
    private boolean takePreamble(ChannelHandlerContext ctx, ByteBuf data) {
        while (preambleSeen < QuicWire.PREAMBLE_BYTES && data.isReadable()) {
            preamble = (preamble << 8) | data.readUnsignedByte();
            preambleSeen++;
        }
        if (preambleSeen < QuicWire.PREAMBLE_BYTES) {
            data.release();
            return false;
        }
        QuicStreamChannel stream = (QuicStreamChannel) ctx.channel();
        if (preamble != QuicWire.PREAMBLE) {
            data.release();
            stream.parent().close(true, QuicTransport.PROTOCOL, Unpooled.EMPTY_BUFFER);
            return false;
        }
        owner = listener.accept(stream);
        if (owner == null) {
            data.release();
            return false;
        }
        return true;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == ChannelInputShutdownEvent.INSTANCE) {
            if (owner != null) {
                owner.streamEnded();
            } else {
                ((QuicStreamChannel) ctx.channel()).parent().close(true, QuicTransport.PROTOCOL, Unpooled.EMPTY_BUFFER);
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (owner != null && ctx.channel().isWritable()) {
            owner.streamWritable();
        }
        ctx.fireChannelWritabilityChanged();
    }

    /** A stream error (the peer reset the stream, say): the connection's end follows and tells the channel. */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        QuicStreamChannel stream = (QuicStreamChannel) ctx.channel();
        stream.parent().close(true, QuicTransport.ABORTED, Unpooled.EMPTY_BUFFER);
    }
}
