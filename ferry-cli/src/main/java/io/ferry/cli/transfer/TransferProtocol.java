package io.ferry.cli.transfer;

import java.nio.charset.StandardCharsets;

/**
 * The ferry file-transfer wire format, version 2: one session per connection, many files in flight,
 * resumable. All integers are big-endian.
 *
 * <pre>
 * both sides first:  hello   "FERRY" u8 version=2           (the sender sends it, the receiver answers it)
 * then frames:       u8 type  u32 length  payload[length]
 *
 * sender → receiver
 *   OFFER   1  u32 id  i64 size  u16 n  name[n]         a '/'-separated relative path, UTF-8
 *   START   2  u32 id  i64 offset                       content follows from offset (0: from the beginning)
 *   DATA    3  u32 id  bytes                            the next bytes of file id
 *   END     4  u32 id  sha256[32]                       SHA-256 of the whole file, resumed prefix included
 *   ABORT   5  u32 id  u16 n  reason[n]                 the sender gave up on file id (e.g. the source vanished)
 * receiver → sender
 *   ACCEPT  16 u32 id  u8 kind  i64 offset  sha256[32]  kind 0: new (offset 0); 1: a partial file of offset
 *                                                       bytes whose SHA-256 is given; 2: the file exists with
 *                                                       this size and SHA-256
 *   VERDICT 17 u32 id  u8 status  u16 n  message[n]     status 0: stored and verified; 1: refused or failed;
 *                                                       2: already present with the same SHA-256
 *   ERROR   18 u16 n  message[n]                        the session cannot go on (e.g. the disk is full); closes
 * </pre>
 *
 * <p>A sender offers files (several may be in flight at once; their DATA frames interleave), the
 * receiver accepts each with what it already holds, the sender checks the held prefix against its own
 * file and starts from there (or from 0 if it differs), and the receiver renames a file into place
 * only after the SHA-256 of the whole content matched. The sender closes the connection once every
 * file has a verdict.
 *
 * <p>Version 1 (one file per connection, no resume) is refused with a message the old version can
 * read: a receiver answers a version-1 offer with a version-1 verdict, and a sender recognises a
 * version-1 verdict in place of a hello.
 */
public final class TransferProtocol {

    static final byte[] MAGIC = "FERRY".getBytes(StandardCharsets.US_ASCII);
    /** The version this implementation speaks. */
    public static final int VERSION = 2;
    static final int HELLO_LENGTH = MAGIC.length + 1;
    static final int DIGEST_LENGTH = 32;
    static final int MAX_NAME_BYTES = 4096;
    /** Largest frame payload accepted: a 16 MiB chunk plus its id. */
    static final int MAX_FRAME = (16 << 20) + 64;
    /** Bytes before a frame's payload: type and length. */
    static final int FRAME_HEADER = 5;

    static final int OFFER = 1;
    static final int START = 2;
    static final int DATA = 3;
    static final int END = 4;
    static final int ABORT = 5;
    static final int ACCEPT = 16;
    static final int VERDICT = 17;
    static final int ERROR = 18;

    static final int KIND_NEW = 0;
    static final int KIND_PARTIAL = 1;
    static final int KIND_EXISTING = 2;

    static final int STATUS_STORED = 0;
    static final int STATUS_FAILED = 1;
    static final int STATUS_ALREADY_PRESENT = 2;

    private TransferProtocol() {
    }

    /**
     * A receiver's hello followed by an ERROR frame: how a receiver that cannot serve a ferry sender
     * (e.g. one that requires TLS) tells it why in words the sender prints.
     */
    public static io.netty.buffer.ByteBuf refusal(io.netty.buffer.ByteBufAllocator alloc, String message) {
        io.netty.buffer.ByteBuf hello = Frames.hello(alloc);
        io.netty.buffer.ByteBuf error = Frames.error(alloc, message);
        try {
            return alloc.buffer(hello.readableBytes() + error.readableBytes()).writeBytes(hello).writeBytes(error);
        } finally {
            hello.release();
            error.release();
        }
    }
}
