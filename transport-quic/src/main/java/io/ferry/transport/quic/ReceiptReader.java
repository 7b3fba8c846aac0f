package io.ferry.transport.quic;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicStreamChannel;

/**
 * Reads the peer's receipts ({@link QuicWire}) off one of its unidirectional streams: first the data stream
 * they report on, then the counts, each for that stream's channel.
 */
final class ReceiptReader extends ChannelInboundHandlerAdapter {

    private long value;
    private int bytes;
    /** The data stream named at the head; -1 until read. */
    private long dataStream = -1;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf data = (ByteBuf) msg;
        try {
            while (data.isReadable()) {
                value = (value << 8) | data.readUnsignedByte();
                if (++bytes == QuicWire.RECEIPT_BYTES) {
                    if (dataStream < 0) {
                        dataStream = value;
                    } else {
                        QuicSocketChannel owner = owner(ctx);
                        if (owner != null) {
                            owner.receipt(value);
                        }
                    }
                    value = 0;
                    bytes = 0;
                }
            }
        } finally {
            data.release();
        }
    }

    /** The channel of the data stream these receipts are for; null if it is not (or no longer) known. */
    private QuicSocketChannel owner(ChannelHandlerContext ctx) {
        QuicConnection connection = QuicConnection.of(((QuicStreamChannel) ctx.channel()).parent());
        return connection == null ? null : connection.member(dataStream);
    }
}
