package io.ferry.transport.striped;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The bytes a striped session puts on its member connections (see the module README, "Striped channels").
 *
 * <pre>
 * listener → client, on every member, first:   "FERRY-STRIPED/1\n"                      (16 bytes)
 * client → listener, on every member, first:   "FERRY-STRIPED/1\n" session(16) index(2) count(2)
 * then, when count = 1:                         the stream's bytes as they are
 * then, when count &gt; 1, blocks:                 offset(8) length(4) payload(length)
 * listener → a client that is not striped:      "FERRY-STRIPED/1 ERROR ...\n", then close
 * </pre>
 *
 * All integers are big-endian and unsigned. A block carries the stream bytes from {@code offset} on;
 * each member carries its blocks in increasing offset order, and the blocks of all members together
 * tile the stream without gap or overlap.
 */
final class StripedWire {

    /** The greeting and the start of a hello: the protocol's name and version. */
    static final byte[] MAGIC = "FERRY-STRIPED/1\n".getBytes(StandardCharsets.US_ASCII);
    static final int HELLO_LENGTH = MAGIC.length + 16 + 2 + 2;
    static final int BLOCK_HEADER = 12;
    /** The largest block a sender makes; a receiver refuses longer ones as malformed. */
    static final int MAX_BLOCK = 1 << 20;
    /** The largest number of members a session may have. */
    static final int MAX_STREAMS = 64;

    private StripedWire() {
    }

    static ByteBuf greeting(ByteBufAllocator alloc) {
        return alloc.buffer(MAGIC.length).writeBytes(MAGIC);
    }

    static ByteBuf hello(ByteBufAllocator alloc, UUID session, int index, int count) {
        return alloc.buffer(HELLO_LENGTH).writeBytes(MAGIC)
                .writeLong(session.getMostSignificantBits()).writeLong(session.getLeastSignificantBits())
                .writeShort(index).writeShort(count);
    }

    static ByteBuf refusal(ByteBufAllocator alloc, String why) {
        byte[] line = ("FERRY-STRIPED/1 ERROR " + why + "\n").getBytes(StandardCharsets.US_ASCII);
        return alloc.buffer(line.length).writeBytes(line);
    }

    static ByteBuf blockHeader(ByteBufAllocator alloc, long offset, int length) {
        return alloc.buffer(BLOCK_HEADER).writeLong(offset).writeInt(length);
    }

    /** Whether the readable bytes of {@code in} start with the first {@code n} bytes of {@link #MAGIC}. */
    static boolean startsWithMagic(ByteBuf in, int n) {
        for (int i = 0; i < n; i++) {
            if (in.getByte(in.readerIndex() + i) != MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    /** Up to {@code max} readable bytes of {@code in} as printable text, for an error message. */
    static String printable(ByteBuf in, int max) {
        StringBuilder s = new StringBuilder();
        int n = Math.min(max, in.readableBytes());
        for (int i = 0; i < n; i++) {
            int b = in.getByte(in.readerIndex() + i) & 0xff;
            if (b >= 0x20 && b < 0x7f) {
                s.append((char) b);
            } else {
                s.append(String.format("\\x%02x", b));
            }
        }
        return s.toString();
    }
}
