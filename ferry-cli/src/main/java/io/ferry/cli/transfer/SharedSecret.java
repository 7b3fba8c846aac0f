package io.ferry.cli.transfer;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * The secret of {@code --token-file}: what a receiver and its senders share instead of certificates.
 * It never crosses the network; each side proves it holds it by an HMAC-SHA256 over both sides' fresh
 * nonces (see {@link TransferProtocol}), and checks the other's proof in constant time.
 */
public final class SharedSecret {

    /** Fewest bytes a secret may have: 128 bits. */
    public static final int MIN_BYTES = 16;
    /** Bytes of each side's nonce. */
    static final int NONCE_BYTES = 32;
    /** Bytes of a proof (an HMAC-SHA256). */
    static final int PROOF_BYTES = 32;

    /** Who proves: the two proofs of one session differ, so neither can be replayed as the other. */
    enum Role {
        SENDER("ferry sender proof"),
        RECEIVER("ferry receiver proof");

        final byte[] label;

        Role(String label) {
            // NUL-terminated, so that no label is a prefix of another's input
            this.label = (label + "\0").getBytes(StandardCharsets.US_ASCII);
        }
    }

    /** Binds a proof to this protocol and version, so it means nothing to any other use of the secret. */
    private static final byte[] PROTOCOL_LABEL = ("ferry protocol " + TransferProtocol.VERSION + " token").getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;

    private SharedSecret(byte[] secret) {
        if (secret.length < MIN_BYTES) {
            throw new IllegalArgumentException("a shared secret needs at least " + MIN_BYTES + " bytes, got " + secret.length);
        }
        this.key = new SecretKeySpec(secret, "HmacSHA256");
    }

    /** A secret from bytes (at least {@link #MIN_BYTES}). */
    public static SharedSecret of(byte[] secret) {
        return new SharedSecret(secret.clone());
    }

    /**
     * Reads a secret from a file: its bytes, less one trailing newline ({@code \n} or {@code \r\n}).
     *
     * @throws UnusableSecretException with a message naming the file and what to do, if the file cannot
     *                                 be read, is readable or writable by anyone but its owner (on a POSIX
     *                                 file system), or holds fewer than {@link #MIN_BYTES} bytes
     */
    public static SharedSecret read(Path file) throws UnusableSecretException {
        byte[] bytes;
        try {
            PosixFileAttributeView posix = Files.getFileAttributeView(file, PosixFileAttributeView.class);
            if (posix != null) {
                Set<PosixFilePermission> permissions = posix.readAttributes().permissions();
                Set<PosixFilePermission> others = EnumSet.of(PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
                        PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);
                others.retainAll(permissions);
                if (!others.isEmpty()) {
                    throw new UnusableSecretException(file + " is open to other users (" + PosixFilePermissions.toString(permissions)
                            + "); a shared secret must be its owner's only: chmod 600 " + file);
                }
            }
            if (!Files.isRegularFile(file)) {
                throw new UnusableSecretException(file + " is not a regular file");
            }
            bytes = Files.readAllBytes(file);
        } catch (UnusableSecretException e) {
            throw e;
        } catch (NoSuchFileException e) {
            throw new UnusableSecretException(file + ": no such file (make one: head -c 32 /dev/urandom | base64 > " + file
                    + "; chmod 600 " + file + ")");
        } catch (IOException e) {
            throw new UnusableSecretException("cannot read " + file + ": " + Failures.reason(e));
        }
        int length = bytes.length;
        if (length > 0 && bytes[length - 1] == '\n') {
            length--;
            if (length > 0 && bytes[length - 1] == '\r') {
                length--;
            }
        }
        try {
            if (length < MIN_BYTES) {
                throw new UnusableSecretException(file + " holds " + length + " bytes; a shared secret needs at least " + MIN_BYTES
                        + " (make one: head -c 32 /dev/urandom | base64 > " + file + "; chmod 600 " + file + ")");
            }
            return new SharedSecret(Arrays.copyOf(bytes, length));
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
    }

    /** A fresh nonce from {@link SecureRandom}. */
    static byte[] nonce() {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    /** HMAC-SHA256(secret, role label ‖ sender's nonce ‖ receiver's nonce ‖ protocol label). */
    byte[] proof(Role role, byte[] senderNonce, byte[] receiverNonce) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            mac.update(role.label);
            mac.update(senderNonce);
            mac.update(receiverNonce);
            mac.update(PROTOCOL_LABEL);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }

    /** Whether {@code claimed} is {@code role}'s proof for these nonces, compared in constant time. */
    boolean verifies(Role role, byte[] senderNonce, byte[] receiverNonce, byte[] claimed) {
        return MessageDigest.isEqual(proof(role, senderNonce, receiverNonce), claimed);
    }

    /**
     * A proof for another use of the secret than file transfer (such as {@code ferry perf}'s control
     * connection): HMAC-SHA256(secret, purpose ‖ NUL ‖ role ‖ NUL ‖ client nonce ‖ server nonce), so that
     * it means nothing to the transfer protocol, nor one role's proof to the other.
     */
    public byte[] proofFor(String purpose, String role, byte[] clientNonce, byte[] serverNonce) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            mac.update((purpose + "\0" + role + "\0").getBytes(StandardCharsets.US_ASCII));
            mac.update(clientNonce);
            mac.update(serverNonce);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }

    /** Whether {@code claimed} is {@link #proofFor}'s proof for these inputs, compared in constant time. */
    public boolean verifiesFor(String purpose, String role, byte[] clientNonce, byte[] serverNonce, byte[] claimed) {
        return MessageDigest.isEqual(proofFor(purpose, role, clientNonce, serverNonce), claimed);
    }

    /** A fresh random nonce ({@link SecureRandom}, 32 bytes). */
    public static byte[] freshNonce() {
        return nonce();
    }

    @Override
    public String toString() {
        return "SharedSecret[hidden]";
    }

    /** A token file that cannot be used; the message names the file and the fix. */
    public static final class UnusableSecretException extends IOException {
        private static final long serialVersionUID = 1L;

        UnusableSecretException(String message) {
            super(message);
        }
    }
}
