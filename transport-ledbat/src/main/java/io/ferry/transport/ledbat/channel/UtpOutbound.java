package io.ferry.transport.ledbat.channel;

import io.ferry.transport.spi.FileRegionChunks;
import io.ferry.transport.ledbat.core.UtpConnection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.FileRegion;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;

/**
 * Moves a channel's flushed messages into its connection's send buffer (event loop): byte buffers as far
 * as the buffer has room, file regions a chunk at a time; what does not fit waits in the outbound buffer
 * until the connection reports itself writable again.
 */
final class UtpOutbound {

    /** A file region is read this much at a time at most, and only as far as the send buffer has room. */
    static final int FILE_CHUNK = 256 * 1024;

    private UtpOutbound() {
    }

    /**
     * Writes from {@code in} into {@code connection} until the send buffer is full or nothing is left;
     * returns whether any bytes moved (the caller then flushes the connection).
     */
    static boolean write(ChannelOutboundBuffer in, UtpConnection connection, ByteBufAllocator alloc) throws IOException {
        boolean wrote = false;
        for (;;) {
            Object msg = in.current();
            if (msg == null) {
                return wrote;
            }
            if (msg instanceof FileRegion region) {
                int read = writeFileRegion(region, connection, alloc);
                if (read > 0) {
                    in.progress(read);
                    wrote = true;
                }
                if (region.transferred() >= region.count()) {
                    in.remove();
                    continue;
                }
                return wrote; // the send buffer is full
            }
            ByteBuf buf = (ByteBuf) msg; // the channel's filterOutboundMessage admits nothing else
            if (!buf.isReadable()) {
                in.remove();
                continue;
            }
            int taken = take(connection, buf);
            if (taken > 0) {
                in.progress(taken);
                wrote = true;
            }
            if (buf.isReadable()) {
                return wrote; // the send buffer is full
            }
            in.remove();
        }
    }

    /**
     * Moves as much of {@code region} into the send buffer as it has room for, a chunk at a time (the
     * region is never in memory whole). Returns the bytes moved.
     */
    private static int writeFileRegion(FileRegion region, UtpConnection connection, ByteBufAllocator alloc) throws IOException {
        int moved = 0;
        for (;;) {
            long space = connection.streams().sendBufferSpace();
            if (space <= 0 || region.transferred() >= region.count()) {
                return moved;
            }
            ByteBuf chunk = FileRegionChunks.next(region, alloc, (int) Math.min(space, FILE_CHUNK));
            if (chunk == null) {
                return moved;
            }
            try {
                moved += take(connection, chunk); // all of it: the chunk is no larger than the room
            } finally {
                chunk.release();
            }
        }
    }

    private static int take(UtpConnection connection, ByteBuf buf) throws ClosedChannelException {
        try {
            return connection.write(buf);
        } catch (IllegalStateException closed) {
            throw new ClosedChannelException();
        }
    }
}
