package io.ferry.transport.quic;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicStreamChannel;

/** Reads the peer's receipts ({@link QuicWire}) off its unidirectional stream for the connection's channel. */
final class ReceiptReader extends ChannelInboundHandlerAdapter {

    private long value;
    private int bytes;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf data = (ByteBuf) msg;
        try {
            QuicSocketChannel owner = ((QuicStreamChannel) ctx.channel()).parent().attr(QuicSocketChannel.OWNER).get();
            while (data.isReadable()) {
                value = (value << 8) | data.readUnsignedByte();
                if (++bytes == QuicWire.RECEIPT_BYTES) {
                    if (owner != null) {
                        owner.receipt(value);
                    }
                    value = 0;
                    bytes = 0;
                }
            }
        } finally {
            data.release();
        }
    }
}
