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

    /** Feeds the first {@code length} bytes of {@code file} into {@code digest}; fails if the file is shorter. */
    static void update(MessageDigest digest, FileChannel file, long length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
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
