package io.ferry.transport.ledbat.core;

import io.netty.buffer.ByteBuf;

/**
 * Appends bytes of one buffer to another by reading from the source ({@code src.getBytes(..., dst, ...)}),
 * which copies memory address to memory address. The obvious {@code dst.writeBytes(src, ...)} asks the
 * destination to pull instead, and Netty 4.2's adaptive allocator's buffers pull through NIO views of both
 * sides: two or three {@code ByteBuffer} objects per packet, the largest share of what the engine allocated
 * per GiB on loopback (JFR allocation samples, bench/results/2026-11-30-engine-cost).
 */
final class ByteCopy {

    private ByteCopy() {
    }

    /** Appends {@code length} bytes of {@code src} from {@code srcIndex} to {@code dst}, leaving {@code src}'s indices alone. */
    static void append(ByteBuf dst, ByteBuf src, int srcIndex, int length) {
        int at = dst.writerIndex();
        dst.ensureWritable(length);
        src.getBytes(srcIndex, dst, at, length);
        dst.writerIndex(at + length);
    }

    /** Moves {@code length} readable bytes of {@code src} to the end of {@code dst}, advancing {@code src}'s reader index. */
    static void move(ByteBuf dst, ByteBuf src, int length) {
        append(dst, src, src.readerIndex(), length);
        src.skipBytes(length);
    }
}
