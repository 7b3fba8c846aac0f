package io.ferry.examples.transfer;

import java.nio.charset.StandardCharsets;

/**
 * The ferry file-transfer wire format, version 1 (all integers big-endian):
 *
 * <pre>
 * sender → receiver, per file:
 *   offer    "FERRY" u8 version=1  u16 nameLength  name (UTF-8, '/'-separated relative path)  i64 size
 *   content  size bytes
 *   trailer  32 bytes: SHA-256 of the content
 * receiver → sender, per file:
 *   verdict  "FERRY" u8 status (0 = stored and verified, 1 = refused or failed)  u16 messageLength  message (UTF-8)
 * </pre>
 *
 * After a verdict the sender may offer another file or close the connection.
 */
public final class TransferProtocol {

    static final byte[] MAGIC = "FERRY".getBytes(StandardCharsets.US_ASCII);
    static final int VERSION = 1;
    static final int DIGEST_LENGTH = 32;
    static final int MAX_NAME_BYTES = 4096;
    static final int STATUS_OK = 0;
    static final int STATUS_FAILED = 1;
    /** Bytes before the name in an offer: magic, version, name length. */
    static final int OFFER_PREFIX = MAGIC.length + 1 + 2;
    /** Bytes before the message in a verdict: magic, status, message length. */
    static final int VERDICT_PREFIX = MAGIC.length + 1 + 2;

    private TransferProtocol() {
    }
}
