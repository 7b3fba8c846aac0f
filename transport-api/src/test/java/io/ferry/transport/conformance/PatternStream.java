package io.ferry.transport.conformance;

import io.netty.buffer.ByteBuf;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.SplittableRandom;

/** A reproducible pseudo-random byte stream with a running SHA-256 of what was produced. */
final class PatternStream {
    private final SplittableRandom random;
    private final MessageDigest digest = sha256();
    private final byte[] scratch = new byte[8192];

    PatternStream(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /** Appends {@code length} next bytes of the stream to {@code target}. */
    void fill(ByteBuf target, int length) {
        int left = length;
        while (left > 0) {
            int n = Math.min(left, scratch.length);
            random.nextBytes(scratch);
            target.writeBytes(scratch, 0, n);
            digest.update(scratch, 0, n);
            left -= n;
        }
    }

    byte[] digest() {
        return digest.digest();
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
