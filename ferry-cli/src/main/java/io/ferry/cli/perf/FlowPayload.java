package io.ferry.cli.perf;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;

/**
 * Where a sending flow's bytes come from: memory (one chunk of random bytes, sent again and again, so the
 * test measures the path and the transport only) or a file ({@code --file}: read in turn, from its start
 * again at its end, on the event loop as Netty's {@code ChunkedNioFile} reads, so the disk is part of it).
 */
abstract class FlowPayload implements AutoCloseable {

    /** The next {@code max} bytes at most, a buffer the caller owns. */
    abstract ByteBuf next(ByteBufAllocator alloc, int max) throws IOException;

    @Override
    public abstract void close();

    static FlowPayload memory() {
        return new Memory();
    }

    /** A file's bytes; it must exist and hold at least one byte. */
    static FlowPayload file(Path file) throws IOException {
        return new FromFile(FileChannel.open(file, StandardOpenOption.READ), file);
    }

    private static final class Memory extends FlowPayload {
        private ByteBuf pattern;

        @Override
        ByteBuf next(ByteBufAllocator alloc, int max) {
            if (pattern == null) {
                byte[] random = new byte[FlowSource.CHUNK];
                new SplittableRandom().nextBytes(random);
                pattern = alloc.directBuffer(FlowSource.CHUNK).writeBytes(random);
            }
            return pattern.retainedSlice(0, Math.min(max, FlowSource.CHUNK));
        }

        @Override
        public void close() {
            if (pattern != null) {
                pattern.release();
                pattern = null;
            }
        }
    }

    private static final class FromFile extends FlowPayload {
        private final FileChannel file;
        private final Path path;
        private long position;

        FromFile(FileChannel file, Path path) {
            this.file = file;
            this.path = path;
        }

        @Override
        ByteBuf next(ByteBufAllocator alloc, int max) throws IOException {
            int n = Math.min(max, FlowSource.CHUNK);
            ByteBuf buf = alloc.directBuffer(n);
            try {
                while (buf.isWritable()) {
                    int read = buf.writeBytes(file, position, buf.writableBytes());
                    if (read < 0) {
                        if (position == 0) {
                            throw new IOException(path + " is empty");
                        }
                        position = 0; // its end: from the start again
                    } else {
                        position += read;
                    }
                }
                return buf;
            } catch (IOException | RuntimeException e) {
                buf.release();
                throw e;
            }
        }

        @Override
        public void close() {
            try {
                file.close();
            } catch (IOException ignored) {
                // read only: nothing was lost
            }
        }
    }
}
