package io.ferry.cli.transfer;

import io.netty.buffer.ByteBuf;

import java.util.function.Consumer;

import static io.ferry.cli.transfer.TransferProtocol.MODE_OPEN;
import static io.ferry.cli.transfer.TransferProtocol.MODE_TOKEN;

/**
 * The sender's side of the AUTH step (docs/cli-security.md): with a shared secret ({@code --token-file})
 * the sender sends a nonce, proves it holds the secret once the receiver's nonce arrives, and offers
 * nothing until the receiver's proof checks out (in constant time); without one it is admitted at once
 * and refuses a receiver that asks for a secret. Each check returns why the session must end, or null.
 */
final class SenderAuth {

    private final SharedSecret token;
    private final byte[] senderNonce;
    private byte[] receiverNonce;
    private boolean admitted;

    /** @param token the shared secret, or null to send without one */
    SenderAuth(SharedSecret token) {
        this.token = token;
        this.senderNonce = token == null ? null : SharedSecret.nonce();
        this.admitted = token == null;
    }

    /** The nonce this sender's AUTH frame carries; null without a secret. */
    byte[] nonce() {
        return senderNonce;
    }

    /** Whether files may be offered: at once without a secret, after the receiver's proof with one. */
    boolean admitted() {
        return admitted;
    }

    /**
     * The receiver's AUTH: whether it has a secret, and its nonce. With both holding one, this sender's
     * proof goes to {@code sendProof}.
     */
    String onReceiverAuth(ByteBuf in, String peer, Consumer<byte[]> sendProof) {
        if (receiverNonce != null) {
            return peer + " sent a second AUTH frame";
        }
        int mode = in.readUnsignedByte();
        if (mode == MODE_TOKEN && in.readableBytes() == SharedSecret.NONCE_BYTES) {
            receiverNonce = new byte[SharedSecret.NONCE_BYTES];
            in.readBytes(receiverNonce);
            if (token == null) {
                return "the receiver refused this sender: it takes files only from senders holding its shared secret "
                        + "(--token-file)";
            }
            sendProof.accept(token.proof(SharedSecret.Role.SENDER, senderNonce, receiverNonce));
            return null;
        }
        if (mode == MODE_OPEN) {
            return token == null ? null : peer + " has no shared secret (it runs without --token-file): nothing sent, as "
                    + "--token-file sends only to a receiver that proves it holds the secret";
        }
        return peer + " sent an AUTH frame this sender does not understand (mode " + mode + ")";
    }

    /** The receiver's PROOF: checked in constant time; files may be offered once it holds. */
    String onReceiverProof(ByteBuf in, String peer) {
        if (token == null || receiverNonce == null || admitted) {
            return peer + " sent a PROOF frame out of turn";
        }
        byte[] claimed = new byte[in.readableBytes()];
        in.readBytes(claimed);
        if (!token.verifies(SharedSecret.Role.RECEIVER, senderNonce, receiverNonce, claimed)) {
            return peer + " does not hold this shared secret (--token-file): nothing sent";
        }
        admitted = true;
        return null;
    }
}
