package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;

import java.util.ArrayDeque;

/**
 * Application bytes written but not yet put into packets. A buffer handed over whole (no one else holds
 * it) is kept as a retained slice, without a copy; one that someone else still holds is copied, because a
 * write completes when its bytes are taken here, and its owner may then change or reuse the buffer while
 * the bytes still wait for the window (Netty's {@code SocketBufReleaseTest} found that: the buffer's count
 * was still the queue's when the write said it was done). Bytes become eligible for sending when flushed,
 * and are copied into the packet's place in its slab.
 */
final class SendQueue {
    private final ArrayDeque<ByteBuf> chunks = new ArrayDeque<>();
    private long queuedBytes;
    private long flushedBytes;

    /** Takes {@code length} bytes from {@code source}, advancing its reader index. */
    void add(ByteBuf source, int length) {
        if (source.refCnt() > 1) {
            ByteBuf copy = source.alloc().directBuffer(length);
            ByteCopy.move(copy, source, length);
            chunks.add(copy);
        } else {
            chunks.add(source.readRetainedSlice(length));
        }
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

    /** Moves {@code length} flushed bytes into {@code out} from index {@code at}, leaving its indices alone. */
    void transferTo(ByteBuf out, int at, int length) {
        if (length > flushedBytes) {
            throw new IllegalStateException("only " + flushedBytes + " flushed bytes, asked for " + length);
        }
        int remaining = length;
        while (remaining > 0) {
            ByteBuf head = chunks.peek();
            int n = Math.min(remaining, head.readableBytes());
            head.getBytes(head.readerIndex(), out, at + length - remaining, n); // address to address (ByteCopy)
            head.skipBytes(n);
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
