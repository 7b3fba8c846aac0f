package io.ferry.cli.transfer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 (which every Java platform must provide) and how files are fed to a {@link Checksum}'s digest. */
final class Digests {
    private Digests() {
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this Java platform has no SHA-256", e);
        }
    }

    /** Bytes read at a time to hash a file. */
    static final int BUFFER = 1 << 20;
    /**
     * One read buffer per thread that hashes files (the disk threads): allocating and zeroing a fresh 1 MiB
     * direct buffer per file made the first send of 4,096 files of 64 KiB touch 4 GiB of new memory.
     */
    private static final ThreadLocal<ByteBuffer> BUFFERS = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(BUFFER));

    /** This thread's read buffer, cleared; use it only until the call that took it returns. */
    static ByteBuffer buffer() {
        return BUFFERS.get().clear();
    }

    /** Feeds the first {@code length} bytes of {@code file} into {@code digest}; fails if the file is shorter. */
    static void update(MessageDigest digest, FileChannel file, long length) throws IOException {
        ByteBuffer buffer = buffer();
        long position = 0;
        while (position < length) {
            buffer.clear().limit((int) Math.min(buffer.capacity(), length - position));
            int n = file.read(buffer, position);
            if (n < 0) {
                throw new IOException("file ended after " + position + " of " + length + " bytes");
            }
            buffer.flip();
            digest.update(buffer);
            position += n;
        }
    }

    /** The digest so far, leaving {@code digest} able to continue. */
    static byte[] peek(MessageDigest digest) {
        if (digest instanceof Checksum.Crc32cDigest) {
            return ((Checksum.Crc32cDigest) digest).current();
        }
        try {
            return ((MessageDigest) digest.clone()).digest();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(digest.getAlgorithm() + " implementation cannot be cloned", e);
        }
    }
}
