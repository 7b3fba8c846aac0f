package io.ferry.cli.transfer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.nio.charset.StandardCharsets;

import static io.ferry.cli.transfer.TransferProtocol.*;

/** Builds the frames of {@link TransferProtocol}. Every method returns a new buffer the caller writes (and so releases). */
final class Frames {

    /** Bytes in front of a DATA frame's content: frame header and file id. */
    static final int DATA_HEADER = FRAME_HEADER + 4;

    private Frames() {
    }

    static ByteBuf hello(ByteBufAllocator alloc) {
        return alloc.buffer(HELLO_LENGTH).writeBytes(MAGIC).writeByte(VERSION);
    }

    /** The receiver's AUTH: the mode and, with a token, its nonce. */
    static ByteBuf receiverAuth(ByteBufAllocator alloc, byte[] nonceOrNull) {
        int length = 1 + (nonceOrNull == null ? 0 : nonceOrNull.length);
        ByteBuf buf = header(alloc, RECEIVER_AUTH, length).writeByte(nonceOrNull == null ? MODE_OPEN : MODE_TOKEN);
        return nonceOrNull == null ? buf : buf.writeBytes(nonceOrNull);
    }

    /** The sender's AUTH: the mode, the checksum of the session and, with a token, its nonce. */
    static ByteBuf senderAuth(ByteBufAllocator alloc, Checksum checksum, byte[] nonceOrNull) {
        int length = 2 + (nonceOrNull == null ? 0 : nonceOrNull.length);
        ByteBuf buf = header(alloc, SENDER_AUTH, length).writeByte(nonceOrNull == null ? MODE_OPEN : MODE_TOKEN)
                .writeByte(checksum.wireId());
        return nonceOrNull == null ? buf : buf.writeBytes(nonceOrNull);
    }

    /** PROOF: this side's HMAC over both nonces. */
    static ByteBuf proof(ByteBufAllocator alloc, int type, byte[] proof) {
        return header(alloc, type, proof.length).writeBytes(proof);
    }

    static ByteBuf offer(ByteBufAllocator alloc, int id, long size, String name, FileAttributes attributes) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        int length = 4 + 8 + 2 + n.length + 2 + 8;
        return header(alloc, OFFER, length).writeInt(id).writeLong(size).writeShort(n.length).writeBytes(n)
                .writeShort(attributes.mode()).writeLong(attributes.mtimeMillis());
    }

    /** ENTRY: a directory or a symbolic link of a tree sent. */
    static ByteBuf entry(ByteBufAllocator alloc, int id, SendPlan.TreeEntry entry) {
        byte[] n = entry.name().getBytes(StandardCharsets.UTF_8);
        byte[] t = entry.target().getBytes(StandardCharsets.UTF_8);
        int kind = entry.kind() == SendPlan.TreeEntry.Kind.DIRECTORY ? ENTRY_DIRECTORY : ENTRY_LINK;
        return header(alloc, ENTRY, 4 + 1 + 2 + 8 + 2 + n.length + 2 + t.length).writeInt(id).writeByte(kind)
                .writeShort(entry.attributes().mode()).writeLong(entry.attributes().mtimeMillis())
                .writeShort(n.length).writeBytes(n).writeShort(t.length).writeBytes(t);
    }

    static ByteBuf start(ByteBufAllocator alloc, int id, long offset) {
        return header(alloc, START, 12).writeInt(id).writeLong(offset);
    }

    /** EAGER: the file's content follows from 0 before its ACCEPT arrived (kept only if it is accepted as new). */
    static ByteBuf eager(ByteBufAllocator alloc, int id) {
        return header(alloc, EAGER, 4).writeInt(id);
    }

    /** A DATA frame with room for {@code contentLength} bytes of content, header written. */
    static ByteBuf dataHeader(ByteBufAllocator alloc, int id, int contentLength) {
        ByteBuf buf = alloc.ioBuffer(DATA_HEADER + contentLength);
        return buf.writeByte(DATA).writeInt(4 + contentLength).writeInt(id);
    }

    /** The header of a DATA frame whose {@code contentLength} bytes of content follow separately (a file region). */
    static ByteBuf dataHeaderAlone(ByteBufAllocator alloc, int id, int contentLength) {
        return alloc.ioBuffer(DATA_HEADER).writeByte(DATA).writeInt(4 + contentLength).writeInt(id);
    }

    static ByteBuf end(ByteBufAllocator alloc, int id, byte[] checksum) {
        return header(alloc, END, 4 + checksum.length).writeInt(id).writeBytes(checksum);
    }

    static ByteBuf abort(ByteBufAllocator alloc, int id, String reason) {
        byte[] r = text(reason);
        return header(alloc, ABORT, 4 + 2 + r.length).writeInt(id).writeShort(r.length).writeBytes(r);
    }

    /** ACCEPT with the checksum of what is held ({@code null}: nothing, zeros of {@code checksum}'s length). */
    static ByteBuf accept(ByteBufAllocator alloc, int id, int kind, long offset, Checksum checksum, byte[] held) {
        return header(alloc, ACCEPT, 4 + 1 + 8 + checksum.length()).writeInt(id).writeByte(kind).writeLong(offset)
                .writeBytes(held == null ? new byte[checksum.length()] : held);
    }

    static ByteBuf verdict(ByteBufAllocator alloc, int id, int status, String message) {
        byte[] m = text(message);
        return header(alloc, VERDICT, 4 + 1 + 2 + m.length).writeInt(id).writeByte(status).writeShort(m.length).writeBytes(m);
    }

    /** ALIVE: the receiver is there, and has taken {@code taken} content bytes in the session ({@link Heartbeat}). */
    static ByteBuf alive(ByteBufAllocator alloc, long taken) {
        return header(alloc, ALIVE, 8).writeLong(taken);
    }

    static ByteBuf error(ByteBufAllocator alloc, String message) {
        byte[] m = text(message);
        return header(alloc, ERROR, 2 + m.length).writeShort(m.length).writeBytes(m);
    }

    /** A version-1 verdict ("FERRY" status length message), the only reply a version-1 sender understands. */
    static ByteBuf versionOneRefusal(ByteBufAllocator alloc, String message) {
        byte[] m = text(message);
        return alloc.buffer(MAGIC.length + 3 + m.length).writeBytes(MAGIC).writeByte(1).writeShort(m.length).writeBytes(m);
    }

    /** Reads a u16-length-prefixed UTF-8 string. */
    static String readText(ByteBuf in) {
        int n = in.readUnsignedShort();
        return in.readCharSequence(n, StandardCharsets.UTF_8).toString();
    }

    private static ByteBuf header(ByteBufAllocator alloc, int type, int length) {
        return alloc.buffer(FRAME_HEADER + length).writeByte(type).writeInt(length);
    }

    private static byte[] text(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length <= 65_535) {
            return b;
        }
        return java.util.Arrays.copyOf(b, 65_535);
    }
}
