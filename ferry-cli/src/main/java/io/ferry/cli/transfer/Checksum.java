package io.ferry.cli.transfer;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * How the two ends of a session verify each file's content: the sender computes it over the file, the
 * receiver over what it writes, and a file is renamed into place only when both agree. The sender
 * chooses ({@code ferry send --checksum}); the receiver takes either, and can insist on one.
 *
 * <ul>
 *   <li>{@link #CRC32C} (the default): CRC-32C (Castagnoli) of the whole file, 4 bytes. It catches every
 *   burst of up to 32 corrupted bits and all but one in 2<sup>32</sup> other corruptions — the check Btrfs
 *   puts on its data blocks and HDFS on its chunks — at about 60 GB/s on one core with the CPU's CRC
 *   instructions (a JDK intrinsic), so it costs nothing next to moving the bytes. It proves nothing
 *   against someone who changes a file on purpose; that is what TLS (integrity of what crosses the
 *   network) or {@link #SHA256} is for.</li>
 *   <li>{@link #SHA256}: SHA-256 of the whole file, 32 bytes: a cryptographic digest that names the
 *   content (the same value as {@code sha256sum}), about 1.4 GB/s on one core with the CPU's SHA
 *   instructions — on a fast link the receiver's hashing is what limits the transfer.</li>
 * </ul>
 */
public enum Checksum {
    CRC32C("crc32c", 1, 4),
    SHA256("sha256", 2, 32);

    private final String label;
    private final int wireId;
    private final int length;

    Checksum(String label, int wireId, int length) {
        this.label = label;
        this.wireId = wireId;
        this.length = length;
    }

    /** The name users give and see: {@code crc32c} or {@code sha256}. */
    public String label() {
        return label;
    }

    /** Bytes of the value on the wire. */
    int length() {
        return length;
    }

    int wireId() {
        return wireId;
    }

    /** A fresh computation of this checksum, as a {@link MessageDigest}. */
    MessageDigest newDigest() {
        return this == SHA256 ? Digests.sha256() : new Crc32cDigest();
    }

    /** The checksum a user named ({@code crc32c}, {@code sha256}; case and a '-' ignored). */
    public static Checksum parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT).replace("-", "");
        for (Checksum c : values()) {
            if (c.label.equals(t)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown checksum '" + text + "' (expected crc32c or sha256)");
    }

    /** The checksum of a wire id, or {@code null} for an id this version does not know. */
    static Checksum ofWireId(int id) {
        for (Checksum c : values()) {
            if (c.wireId == id) {
                return c;
            }
        }
        return null;
    }

    /**
     * CRC-32C as a {@link MessageDigest}, so that the code that hashes files needs to know nothing of the
     * algorithm. Direct buffers are checked where they lie (no copy). The value is the CRC big-endian.
     */
    static final class Crc32cDigest extends MessageDigest {
        private final CRC32C crc = new CRC32C();

        Crc32cDigest() {
            super("CRC32C");
        }

        @Override
        protected void engineUpdate(byte input) {
            crc.update(input);
        }

        @Override
        protected void engineUpdate(byte[] input, int offset, int len) {
            crc.update(input, offset, len);
        }

        @Override
        protected void engineUpdate(ByteBuffer input) {
            crc.update(input);
        }

        @Override
        protected int engineGetDigestLength() {
            return 4;
        }

        @Override
        protected byte[] engineDigest() {
            byte[] value = current();
            crc.reset();
            return value;
        }

        @Override
        protected void engineReset() {
            crc.reset();
        }

        /** The value so far; the computation goes on. */
        byte[] current() {
            return ByteBuffer.allocate(4).putInt((int) crc.getValue()).array();
        }

        @Override
        public Object clone() throws CloneNotSupportedException {
            throw new CloneNotSupportedException("a CRC-32C in progress cannot be copied; use current()");
        }
    }
}
