package io.ferry.cli.transfer;

import java.nio.charset.StandardCharsets;

/**
 * The ferry file-transfer wire format, version 7: one session per connection, many files in flight,
 * resumable, senders optionally chosen by a shared secret, content verified with a checksum the sender
 * chooses, the first files' content sent without waiting a round trip for their ACCEPT, and a tree kept as
 * {@code rsync -a} keeps it (permission bits, modification times, empty directories, links inside the tree).
 * All integers are big-endian.
 *
 * <pre>
 * both sides first:  hello   "FERRY" u8 version=7           (the sender sends it, the receiver answers it)
 * then frames:       u8 type  u32 length  payload[length]
 *
 * who may send, and how content is checked, before any other frame in either direction
 *   sender → receiver    AUTH   6  u8 mode  u8 checksum  [nonceS[32]]
 *                                  mode 0: no token; 1: --token-file, a fresh nonce follows;
 *                                  checksum 1: CRC-32C (C = 4 bytes); 2: SHA-256 (C = 32 bytes), for every file
 *   receiver → sender    AUTH  19  u8 mode  [nonceR[32]]     sent with the receiver's hello, same modes
 *   with mode 1 on both sides, in this order:
 *   sender → receiver    PROOF  7  hmac[32]                 HMAC-SHA256(secret, "ferry sender proof\0" ‖ nonceS ‖ nonceR ‖ "ferry protocol 7 token")
 *   receiver → sender    PROOF 20  hmac[32]                 HMAC-SHA256(secret, "ferry receiver proof\0" ‖ nonceS ‖ nonceR ‖ "ferry protocol 7 token")
 *
 * sender → receiver
 *   OFFER   1  u32 id  i64 size  u16 n  name[n]         a '/'-separated relative path, UTF-8,
 *              u16 mode  i64 mtime                      then the permission bits (0-0777; 0xFFFF: not kept) and the
 *                                                       modification time (ms since the epoch; i64 min: not kept)
 *   ENTRY   9  u32 id  u8 kind  u16 mode  i64 mtime     a directory (kind 1) or a symbolic link (kind 2) of a tree:
 *              u16 n  name[n]  u16 t  target[t]         the receiver makes it (a link's target: '/'-separated,
 *                                                       relative, inside the tree) and answers with a VERDICT;
 *                                                       a directory's mode and time are set when the session ends
 *   START   2  u32 id  i64 offset                       content follows from offset (0: from the beginning)
 *   EAGER   8  u32 id                                   content follows from 0, sent before the file's ACCEPT arrived:
 *                                                       kept if the receiver accepts the file as new (kind 0),
 *                                                       dropped otherwise until the next START of the file
 *   DATA    3  u32 id  bytes                            the next bytes of file id
 *   END     4  u32 id  checksum[C]                      the checksum of the whole file, resumed prefix included
 *   ABORT   5  u32 id  u16 n  reason[n]                 the sender gave up on file id (e.g. the source vanished)
 * receiver → sender
 *   ACCEPT  16 u32 id  u8 kind  i64 offset  checksum[C] kind 0: new (offset 0, checksum zero); 1: a partial file
 *                                                       of offset bytes with this checksum; 2: the file exists
 *                                                       with this size and checksum
 *   VERDICT 17 u32 id  u8 status  u16 n  message[n]     status 0: stored and verified; 1: refused or failed;
 *                                                       2: already present with the same checksum
 *   ERROR   18 u16 n  message[n]                        the session cannot go on (e.g. the disk is full); closes
 *   ALIVE   21 i64 taken                                every 500 ms once the sender is admitted: the receiver is
 *                                                       there, and has taken this many content bytes in the session;
 *                                                       a sender that hears nothing for 4 s takes it for gone
 * </pre>
 *
 * <p>Who may send: with mode 0 on both sides the sender goes on to its offers without waiting. A
 * receiver with a token refuses a sender with mode 0, and a sender with a wrong proof, with an ERROR
 * frame before it has read any offer, so nothing is written; it proves itself only after the sender
 * did, so a stranger never gets a receiver's proof. A sender with a token sends no offer until the
 * receiver's proof checked out (constant-time comparison), and a sender with a token facing a receiver
 * with mode 0 ends the session without offering anything: --token-file promises that files go only to a
 * receiver holding the secret. The secret itself never crosses the network; the nonces make every
 * proof good for one session only.
 *
 * <p>A sender offers files (several may be in flight at once; their DATA frames interleave), the
 * receiver accepts each with what it already holds, the sender checks the held prefix against its own
 * file and starts from there (or from 0 if it differs), and the receiver renames a file into place
 * only after the checksum of the whole content matched ({@link Checksum}). Once every file is ended (or
 * refused or aborted) the sender ends its stream (not under TLS), so that its end of stream is acknowledged
 * with the data; the receiver then sends the last verdicts and closes. The sender closes the connection
 * once every file has a verdict. (Version 5 added the sender's end of stream; version 4 closed only then.)
 *
 * <p><b>Eager start.</b> The files a sender offers before the receiver's first answer (ACCEPT or VERDICT) start at once
 * with EAGER instead of START, so that the first data leaves with the offers rather than a round trip
 * later. Their END waits for their ACCEPT. An ACCEPT of kind 0 keeps what was sent; any other (a partial or
 * an existing file here) makes the sender start the file again the usual way, with START at the offset its
 * prefix check allows, and the receiver drops the eager content before it. A sender sends at most a few MiB
 * of content ahead of the ACCEPTs (ChunkWriter.EAGER_BYTES), so little is sent twice, and a resume or an
 * "already present" file is never lost to it. A sender under TLS does not start eagerly (a receiver refuses a
 * certificate after the sender's handshake is done), and a receiver ending a session with ERROR closes
 * lingeringly ({@link LingeringClose}) so that a sender already streaming reads it. (Version 6 added EAGER.)
 *
 * <p><b>The tree.</b> Before its first offer a sender sends an ENTRY for every directory of the trees it sends,
 * parents first (empty ones too), and for every symbolic link that stays inside them; ids follow the files'.
 * The receiver sets a file's mode and time once it is stored (or found already present), a link's time
 * when it makes it, and a directory's mode and time when the session ends, deepest first, so that files
 * written into it do not change its time and a read-only mode does not refuse them. (Version 7 added the
 * attributes, ENTRY and ALIVE.)
 *
 * <p>Other versions are refused with a message naming both versions. Version 1 (one file per connection, no resume) is refused with a message the old version can
 * read: a receiver answers a version-1 offer with a version-1 verdict, and a sender recognises a
 * version-1 verdict in place of a hello.
 */
public final class TransferProtocol {

    static final byte[] MAGIC = "FERRY".getBytes(StandardCharsets.US_ASCII);
    /** The version this implementation speaks. */
    public static final int VERSION = 7;
    static final int HELLO_LENGTH = MAGIC.length + 1;
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
    static final int SENDER_AUTH = 6;
    static final int SENDER_PROOF = 7;
    static final int EAGER = 8;
    static final int ENTRY = 9;
    static final int ENTRY_DIRECTORY = 1;
    static final int ENTRY_LINK = 2;
    static final int ACCEPT = 16;
    static final int VERDICT = 17;
    static final int ERROR = 18;
    static final int RECEIVER_AUTH = 19;
    static final int RECEIVER_PROOF = 20;
    static final int ALIVE = 21;

    static final int MODE_OPEN = 0;
    static final int MODE_TOKEN = 1;

    static final int KIND_NEW = 0;
    static final int KIND_PARTIAL = 1;
    static final int KIND_EXISTING = 2;

    static final int STATUS_STORED = 0;
    static final int STATUS_FAILED = 1;
    static final int STATUS_ALREADY_PRESENT = 2;

    private TransferProtocol() {
    }

    /**
     * Tells a sender that this receiver cannot serve it (e.g. one that requires TLS), in words the sender
     * prints: a receiver's hello and an ERROR frame, then a lingering close ({@link LingeringClose}) so that a
     * sender already streaming its first files reads them instead of a reset. Drops nothing itself: the
     * handler calling it must drop what it reads meanwhile.
     */
    public static void refuse(io.netty.channel.ChannelHandlerContext ctx, String message) {
        ctx.write(Frames.hello(ctx.alloc()));
        LingeringClose.after(ctx, ctx.writeAndFlush(Frames.error(ctx.alloc(), message)));
    }
}
