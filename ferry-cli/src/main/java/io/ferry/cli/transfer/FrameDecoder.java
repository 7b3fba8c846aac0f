package io.ferry.cli.transfer;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCounted;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.ferry.cli.transfer.TransferProtocol.*;

/**
 * Splits the byte stream of a ferry session into a {@link Hello} (or a {@link Foreign} peer that does not
 * speak the protocol) followed by {@link Frame}s. Content is not copied: a frame's payload is a retained
 * slice of what arrived, released by whoever consumes the frame.
 */
final class FrameDecoder extends ByteToMessageDecoder {

    /** The peer's hello: it speaks ferry, in this version. */
    record Hello(int version) {
    }

    /** The peer sent something that is not a ferry hello; {@code sample} shows its first bytes. */
    record Foreign(String sample, boolean looksLikeTls) {
    }

    /** One frame; {@link #release()} it when done. */
    static final class Frame extends AbstractReferenceCounted {
        final int type;
        final ByteBuf payload;

        Frame(int type, ByteBuf payload) {
            this.type = type;
            this.payload = payload;
        }

        @Override
        protected void deallocate() {
            payload.release();
        }

        @Override
        public ReferenceCounted touch(Object hint) {
            payload.touch(hint);
            return this;
        }
    }

    private boolean helloSeen;
    private boolean stopped;

    FrameDecoder() {
        setCumulator(COMPOSITE_CUMULATOR);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (stopped) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (!helloSeen) {
            int start = in.readerIndex();
            int check = Math.min(in.readableBytes(), MAGIC.length);
            for (int i = 0; i < check; i++) {
                if (in.getByte(start + i) != MAGIC[i]) {
                    stopped = true;
                    out.add(new Foreign(sample(in), in.getByte(start) == 0x16));
                    in.skipBytes(in.readableBytes());
                    return;
                }
            }
            if (in.readableBytes() < HELLO_LENGTH) {
                return;
            }
            int version = in.getUnsignedByte(start + MAGIC.length);
            in.skipBytes(HELLO_LENGTH);
            helloSeen = true;
            out.add(new Hello(version));
            if (version != VERSION) {
                stopped = true;
                in.skipBytes(in.readableBytes());
                return;
            }
        }
        while (in.readableBytes() >= FRAME_HEADER) {
            int start = in.readerIndex();
            int type = in.getUnsignedByte(start);
            long length = in.getUnsignedInt(start + 1);
            if (length > MAX_FRAME) {
                stopped = true;
                in.skipBytes(in.readableBytes());
                throw new ProtocolException("frame of type " + type + " announces " + length + " bytes, more than " + MAX_FRAME);
            }
            if (in.readableBytes() < FRAME_HEADER + length) {
                return;
            }
            in.skipBytes(FRAME_HEADER);
            out.add(new Frame(type, in.readRetainedSlice((int) length)));
        }
    }

    private static String sample(ByteBuf in) {
        int n = Math.min(in.readableBytes(), 16);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int b = in.getUnsignedByte(in.readerIndex() + i);
            s.append(b >= 0x20 && b < 0x7f ? String.valueOf((char) b) : String.format("\\x%02x", b));
        }
        return s.toString();
    }

    /** The peer broke the protocol. */
    static final class ProtocolException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ProtocolException(String message) {
            super(message);
        }
    }

    static String utf8(ByteBuf buf) {
        return buf.toString(StandardCharsets.UTF_8);
    }
}
