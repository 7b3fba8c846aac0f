package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;

import java.util.ArrayDeque;

/**
 * Application bytes written but not yet put into packets. Written buffers are kept as retained slices
 * (no copy); bytes become eligible for sending when flushed, and are copied once, into the packet.
 */
final class SendQueue {
    private final ArrayDeque<ByteBuf> chunks = new ArrayDeque<>();
    private long queuedBytes;
    private long flushedBytes;

    /** Takes {@code length} bytes from {@code source}, advancing its reader index. */
    void add(ByteBuf source, int length) {
        chunks.add(source.readRetainedSlice(length));
        queuedBytes += length;
    }

    /** Makes every queued byte eligible for sending. */
    void flush() {
        flushedBytes = queuedBytes;
    }

    long queuedBytes() {
        return queuedBytes;
    }

    long flushedBytes() {
        return flushedBytes;
    }

    /** Moves {@code length} flushed bytes into {@code out}. */
    void transferTo(ByteBuf out, int length) {
        if (length > flushedBytes) {
            throw new IllegalStateException("only " + flushedBytes + " flushed bytes, asked for " + length);
        }
        int remaining = length;
        while (remaining > 0) {
            ByteBuf head = chunks.peek();
            int n = Math.min(remaining, head.readableBytes());
            out.writeBytes(head, n);
            remaining -= n;
            if (!head.isReadable()) {
                chunks.poll().release();
            }
        }
        queuedBytes -= length;
        flushedBytes -= length;
    }

    /** Releases every queued buffer. */
    void releaseAll() {
        ByteBuf chunk;
        while ((chunk = chunks.poll()) != null) {
            chunk.release();
        }
        queuedBytes = 0;
        flushedBytes = 0;
    }
}
