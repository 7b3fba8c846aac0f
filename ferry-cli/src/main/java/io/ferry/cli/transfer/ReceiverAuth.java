package io.ferry.cli.transfer;

import io.netty.buffer.ByteBuf;

import java.util.function.Consumer;

import static io.ferry.cli.transfer.TransferProtocol.MODE_OPEN;
import static io.ferry.cli.transfer.TransferProtocol.MODE_TOKEN;

/**
 * The receiver's side of the AUTH step (docs/cli-security.md), {@link SenderAuth}'s counterpart: takes the
 * session's checksum from the sender's AUTH (refusing one other than {@code --checksum}'s), and with a shared
 * secret ({@code --token-file}) admits the sender only once its proof checks out (in constant time), proving
 * itself only then; without one it admits a sender without a secret at once and ends the session with one that
 * has a secret. Each step returns why the session must end, or null; a malformed or out-of-turn frame throws.
 */
final class ReceiverAuth {

    /** Why the session ends: a line for the receiver's log and one for the sender. */
    record Refusal(String log, String toSender) {
    }

    private final SharedSecret token;
    private final Checksum required;
    private byte[] receiverNonce;
    private byte[] senderNonce;
    private Checksum checksum;
    private boolean admitted;

    /**
     * @param token    the shared secret senders must prove they hold, or null
     * @param required the only checksum this receiver takes, or null for either
     */
    ReceiverAuth(SharedSecret token, Checksum required) {
        this.token = token;
        this.required = required;
    }

    /** The nonce this receiver's AUTH frame carries (made here, after the sender's hello); null without a secret. */
    byte[] nonce() {
        if (token != null && receiverNonce == null) {
            receiverNonce = SharedSecret.nonce();
        }
        return receiverNonce;
    }

    /** Whether the sender may offer files: it passed the AUTH step (and, with a secret, proved it holds it). */
    boolean admitted() {
        return admitted;
    }

    /** How the sender checks content, from its AUTH (null before). */
    Checksum checksum() {
        return checksum;
    }

    /** Whether this receiver asks senders for a secret. */
    boolean hasToken() {
        return token != null;
    }

    /** The sender's AUTH: whether it has a secret, the session's checksum, and its nonce. */
    Refusal onSenderAuth(ByteBuf in, String peer) {
        if (senderNonce != null || admitted || checksum != null) {
            throw new IllegalStateException("a second AUTH frame");
        }
        int mode = in.readUnsignedByte();
        int checksumId = in.readUnsignedByte();
        checksum = Checksum.ofWireId(checksumId);
        if (checksum == null) {
            throw new IllegalStateException("unknown checksum " + checksumId + " in its AUTH frame");
        }
        if (required != null && checksum != required) {
            return refused(peer, "it checks content with " + checksum.label() + ", and this receiver takes files only with "
                    + required.label() + " (--checksum " + required.label() + "; send with --checksum " + required.label() + ")");
        }
        if (mode == MODE_TOKEN) {
            if (in.readableBytes() != SharedSecret.NONCE_BYTES) {
                throw new IllegalStateException("an AUTH frame with a nonce of " + in.readableBytes() + " bytes");
            }
            senderNonce = new byte[SharedSecret.NONCE_BYTES];
            in.readBytes(senderNonce);
            return token != null ? null : new Refusal(peer + " has a shared secret (--token-file) and this receiver has none; it sends "
                    + "only to a receiver that proves it holds one", "this receiver has no --token-file");
        }
        if (mode != MODE_OPEN) {
            throw new IllegalStateException("unknown AUTH mode " + mode);
        }
        if (token != null) {
            return refused(peer, "it has no token, and this receiver takes files only from senders holding its shared secret (--token-file)");
        }
        admitted = true;
        return null;
    }

    /** The sender's PROOF: checked in constant time; only then does this receiver prove itself through {@code send}. */
    Refusal onSenderProof(ByteBuf in, String peer, Consumer<byte[]> send) {
        if (token == null || senderNonce == null || admitted) {
            throw new IllegalStateException("a PROOF frame out of turn");
        }
        byte[] claimed = new byte[in.readableBytes()];
        in.readBytes(claimed);
        if (!token.verifies(SharedSecret.Role.SENDER, senderNonce, receiverNonce, claimed)) {
            return refused(peer, "wrong token (--token-file)");
        }
        admitted = true;
        send.accept(token.proof(SharedSecret.Role.RECEIVER, senderNonce, receiverNonce));
        return null;
    }

    /** A sender that did not prove it may send: one line here, one line for it. */
    private static Refusal refused(String peer, String why) {
        return new Refusal("refused " + peer + ": " + why, why);
    }
}
