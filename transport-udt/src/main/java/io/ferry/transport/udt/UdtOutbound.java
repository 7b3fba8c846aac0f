package io.ferry.transport.udt;

import io.ferry.transport.spi.FileRegionChunks;
import io.ferry.transport.udt.proto.core.UdtConnection;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.FileRegion;

import java.io.IOException;

/**
 * Moves a channel's flushed messages into its UDT connection while the connection is writable: byte
 * buffers whole (framed: behind their length; message mode: one message each), file regions a chunk at
 * a time. What does not fit waits in the outbound buffer until the connection is writable again.
 */
final class UdtOutbound {

    /** A file region is read this much at a time. */
    static final int FILE_CHUNK = 256 * 1024;

    private UdtOutbound() {
    }

    /** Returns whether any bytes moved (the caller then flushes the connection). */
    static boolean write(ChannelOutboundBuffer in, UdtSocketChannel channel) throws IOException {
        UdtConnection connection = channel.connection();
        boolean framed = channel.framing().framed();
        boolean wrote = false;
        for (;;) {
            Object msg = in.current();
            if (msg instanceof FileRegion region && region.transferred() >= region.count()) {
                in.remove(); // complete: its promise succeeds now, whatever the connection's room
                continue;
            }
            if (msg == null || !connection.isWritable()) {
                return wrote;
            }
            if (msg instanceof FileRegion region) {
                ByteBuf chunk = FileRegionChunks.next(region, channel.alloc(), FILE_CHUNK);
                if (chunk == null) {
                    return wrote;
                }
                int n = chunk.readableBytes();
                take(connection, chunk, framed, channel);
                in.progress(n);
                wrote = true;
                continue;
            }
            ByteBuf buf = (ByteBuf) msg;
            int n = buf.readableBytes();
            if (n == 0 && !channel.settings().isMessageMode()) {
                in.remove();
                continue;
            }
            // a small buffer is copied by the connection at once: no slice for it
            boolean copied = n <= UdtConnection.COPIED_WRITE_BYTES && !channel.settings().isMessageMode();
            take(connection, copied ? buf.retain() : buf.retainedSlice(), framed, channel);
            in.progress(n);
            in.remove();
            wrote = true;
        }
    }

    private static void take(UdtConnection connection, ByteBuf data, boolean framed, UdtSocketChannel channel) {
        if (framed) {
            connection.writeWord(data.readableBytes()); // UdtFraming's header: the frame's length
            channel.framingSent(UdtFraming.HEADER);
        }
        connection.write(data);
    }
}
