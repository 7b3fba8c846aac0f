package io.ferry.transport.quic;

import io.ferry.transport.spi.FileRegionChunks;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.FileRegion;

import java.io.IOException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A QUIC channel's write path: what one flush hands to its stream, as far as the stream's capacity reaches,
 * so that the codec seldom queues (what it does queue, the end of stream waits for: {@link StreamEnd}). The
 * buffers at the head go as one write, a composite of them, because each write to a codec stream makes the
 * codec send at once, and small writes would each leave a packet part-filled. They are handed before their
 * promises complete: a listener that closes the channel when a write completes starts a lingering close,
 * whose end of stream must follow these bytes. File regions are read {@link #FILE_CHUNK} at a time (the
 * codec takes only buffers).
 */
final class StreamWrites {

    /** The most one write hands to the stream from a file region. */
    static final int FILE_CHUNK = 256 << 10;

    private final Supplier<ByteBufAllocator> alloc;
    private final Consumer<ByteBuf> stream;

    /** @param alloc the channel's allocator; @param stream takes each write for the stream (and owns it) */
    StreamWrites(Supplier<ByteBufAllocator> alloc, Consumer<ByteBuf> stream) {
        this.alloc = alloc;
        this.stream = stream;
    }

    /**
     * Hands {@code in}'s flushed messages to the stream while {@code capacity} (the stream's, read again after
     * each write, as the codec takes bytes at once) has room: a stream left with room never says it is writable
     * again, so what waits would wait for good.
     */
    void write(ChannelOutboundBuffer in, LongSupplier capacity) throws Exception {
        for (long room; (room = capacity.getAsLong()) > 0 && in.current() != null; ) {
            if (handBuffers(in, room) == 0) {
                Object head = in.current(); // what the buffers stopped at: a file region, or nothing (empty buffers only)
                if (head == null || !handFileChunk(in, (FileRegion) head, room)) {
                    break;
                }
            }
        }
    }

    /** Hands the buffers at the head of {@code in}, up to {@code capacity} bytes, as one write; removes them after. */
    private long handBuffers(ChannelOutboundBuffer in, long capacity) throws Exception {
        Batch batch = new Batch();
        in.forEachFlushedMessage(msg -> {
            if (!(msg instanceof ByteBuf buf)) {
                return false;
            }
            int n = buf.readableBytes();
            int take = (int) Math.min(n, capacity - batch.bytes);
            if (take > 0) {
                batch.add(buf.retainedSlice(buf.readerIndex(), take), alloc.get());
            }
            return take == n && batch.bytes < capacity;
        });
        long bytes = batch.bytes;
        if (bytes > 0) {
            stream.accept(batch.take());
        }
        // after the hand: completing a write's promise may close the channel, whose end of stream must follow these bytes
        in.removeBytes(bytes);
        return bytes;
    }

    /** Hands the next chunk of the file region at the head of {@code in}; removes it once all handed. False: no progress. */
    private boolean handFileChunk(ChannelOutboundBuffer in, FileRegion region, long capacity) throws IOException {
        ByteBuf chunk = FileRegionChunks.next(region, alloc.get(), (int) Math.min(capacity, FILE_CHUNK));
        if (chunk != null) {
            long n = chunk.readableBytes();
            stream.accept(chunk);
            in.progress(n);
        }
        if (region.transferred() >= region.count()) {
            in.remove();
            return true;
        }
        return chunk != null;
    }

    /** The bytes of one write: one buffer, or a composite of several. */
    private static final class Batch {
        long bytes;
        private ByteBuf first;
        private CompositeByteBuf composite;

        void add(ByteBuf piece, ByteBufAllocator alloc) {
            bytes += piece.readableBytes();
            if (first == null) {
                first = piece;
                return;
            }
            if (composite == null) {
                composite = alloc.compositeDirectBuffer(Integer.MAX_VALUE);
                composite.addComponent(true, first);
            }
            composite.addComponent(true, piece);
        }

        ByteBuf take() {
            return composite != null ? composite : first;
        }
    }
}
