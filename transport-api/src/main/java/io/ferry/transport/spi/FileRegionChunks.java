package io.ferry.transport.spi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.FileRegion;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * Reads a {@link FileRegion} a chunk at a time into buffers, for channels whose transport has no path
 * from a file to its socket (uTP, a striped channel's framed blocks). The region is streamed: only the
 * chunk being sent is in memory, however large the region. Reading goes through the region's own
 * {@link FileRegion#transferTo}, so its {@code transferred()} advances as Netty's own channels advance it.
 */
public final class FileRegionChunks {

    /**
     * Reads the next at most {@code max} bytes of {@code region} that it has not transferred yet.
     *
     * @return a buffer holding them (the caller releases it), or null when nothing is left
     * @throws IOException if the file cannot be read, or ends before the region does
     */
    public static ByteBuf next(FileRegion region, ByteBufAllocator alloc, int max) throws IOException {
        long remaining = region.count() - region.transferred();
        int n = (int) Math.min(remaining, max);
        if (n <= 0) {
            return null;
        }
        ByteBuf chunk = alloc.directBuffer(n);
        try {
            Sink sink = new Sink(chunk, n);
            while (sink.room > 0 && region.transferred() < region.count()) {
                long read = region.transferTo(sink, region.transferred());
                if (read <= 0) {
                    throw new IOException("the file behind " + region + " ended " + (region.count() - region.transferred())
                            + " bytes before the region's end");
                }
            }
            if (!chunk.isReadable()) {
                chunk.release();
                return null;
            }
            return chunk;
        } catch (IOException | RuntimeException e) {
            chunk.release();
            throw e;
        }
    }

    /** A channel that appends to a buffer until it holds what was asked for, then takes nothing more. */
    private static final class Sink implements WritableByteChannel {
        private final ByteBuf into;
        int room;

        Sink(ByteBuf into, int room) {
            this.into = into;
            this.room = room;
        }

        @Override
        public int write(ByteBuffer src) {
            int n = Math.min(src.remaining(), room);
            if (n == 0) {
                return 0;
            }
            int limit = src.limit();
            src.limit(src.position() + n);
            into.writeBytes(src);
            src.limit(limit);
            room -= n;
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    private FileRegionChunks() {
    }
}
