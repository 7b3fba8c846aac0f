package io.ferry.transport.udt;

import io.ferry.transport.spi.InboundQueue;
import io.ferry.transport.spi.ReadLoop;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.io.IOException;
import java.util.function.IntConsumer;

/**
 * Ferry's framing of a UDT stream ({@link UdtSettings.StreamMode#FRAMED}), which gives UDT the half-close
 * it lacks: each write travels as a 4-byte big-endian length and its bytes, and a zero length ends the
 * stream. In raw stream and message mode bytes pass as they are. The decoder hands payload to the
 * channel's inbound queue and reports header bytes consumed at once (the application never sees them).
 */
final class UdtFraming {
    static final int HEADER = 4;

    private final UdtSettings.StreamMode mode;
    private final byte[] header = new byte[HEADER];
    private int headerHave;
    private long frameRemaining;
    private boolean endSeen;
    private long payloadBytes;

    UdtFraming(UdtSettings.StreamMode mode) {
        this.mode = mode;
    }

    /** A frame header for a payload of {@code length} bytes. */
    static ByteBuf header(ByteBufAllocator alloc, int length) {
        return alloc.buffer(HEADER).writeInt(length);
    }

    /** The zero-length frame that ends the stream. */
    static ByteBuf endOfStream(ByteBufAllocator alloc) {
        return header(alloc, 0);
    }

    boolean framed() {
        return mode == UdtSettings.StreamMode.FRAMED;
    }

    /** The application's bytes received (frame headers not counted). */
    long payloadBytes() {
        return payloadBytes;
    }

    /** Whether the peer's end-of-stream frame arrived. */
    boolean endSeen() {
        return endSeen;
    }

    /**
     * Reads past delivered bytes nobody will read (the channel closed or stopped reading), still
     * noticing the peer's end-of-stream frame. The caller keeps {@code data}.
     *
     * @return the payload bytes skipped (frame headers not counted)
     */
    long skip(ByteBuf data) {
        if (!framed()) {
            return data.readableBytes();
        }
        long payload = 0;
        int at = data.readerIndex();
        int end = data.writerIndex();
        while (at < end && !endSeen) {
            if (frameRemaining == 0) {
                int n = Math.min(HEADER - headerHave, end - at);
                data.getBytes(at, header, headerHave, n);
                headerHave += n;
                at += n;
                if (headerHave < HEADER) {
                    return payload;
                }
                headerHave = 0;
                int length = ((header[0] & 0xff) << 24) | ((header[1] & 0xff) << 16) | ((header[2] & 0xff) << 8) | (header[3] & 0xff);
                if (length <= 0) {
                    endSeen = length == 0;
                    return payload;
                }
                frameRemaining = length;
            }
            int n = (int) Math.min(frameRemaining, end - at);
            at += n;
            payload += n;
            frameRemaining -= n;
        }
        return payload;
    }

    /**
     * Splits delivered bytes into payload for {@code inbound} (ownership passes) and frame headers,
     * whose bytes go to {@code consumed} (once per call). The payload of one datagram reaches the pipeline as
     * one buffer: a slice when it is one frame's, else a copy of its frames' pieces (small writes, 64 bytes
     * each behind a header, had made twenty reads and twenty connection events of every packet).
     *
     * @throws IOException for a negative length or bytes after the end of the stream
     */
    void decode(ByteBuf data, InboundQueue inbound, IntConsumer consumed) throws IOException {
        if (!framed()) {
            payloadBytes += data.readableBytes();
            inbound.add(data);
            return;
        }
        int headerBytes = 0;
        ByteBuf pending = null;
        boolean copied = false;
        try {
            while (data.isReadable()) {
                if (endSeen) {
                    throw new IOException("the UDT peer sent " + data.readableBytes() + " bytes after ending its stream");
                }
                if (frameRemaining == 0) {
                    int n = Math.min(HEADER - headerHave, data.readableBytes());
                    data.readBytes(header, headerHave, n);
                    headerHave += n;
                    headerBytes += n;
                    if (headerHave < HEADER) {
                        break;
                    }
                    headerHave = 0;
                    int length = ((header[0] & 0xff) << 24) | ((header[1] & 0xff) << 16) | ((header[2] & 0xff) << 8) | (header[3] & 0xff);
                    if (length < 0) {
                        throw new IOException("malformed Ferry UDT frame (length " + length + "); a plain UDT peer needs "
                                + UdtChannelOption.RAW_STREAM.name() + " on this side");
                    }
                    if (length == 0) {
                        endSeen = true;
                        if (pending != null) {
                            inbound.add(pending);
                            pending = null;
                        }
                        inbound.add(ReadLoop.END);
                        continue;
                    }
                    frameRemaining = length;
                }
                int n = (int) Math.min(frameRemaining, data.readableBytes());
                if (pending == null) {
                    pending = data.readRetainedSlice(n);
                } else {
                    if (!copied) {
                        ByteBuf first = pending;
                        pending = data.alloc().buffer(first.readableBytes() + data.readableBytes());
                        pending.writeBytes(first);
                        first.release();
                        copied = true;
                    }
                    pending.writeBytes(data, n);
                }
                payloadBytes += n;
                frameRemaining -= n;
            }
            if (pending != null) {
                inbound.add(pending);
                pending = null;
            }
        } finally {
            if (pending != null) {
                pending.release();
            }
            data.release();
            if (headerBytes > 0) {
                consumed.accept(headerBytes);
            }
        }
    }
}
