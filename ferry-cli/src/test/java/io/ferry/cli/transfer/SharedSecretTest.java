package io.ferry.cli.transfer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SharedSecretTest {

    @TempDir
    Path tmp;

    private Path tokenFile(String name, String content, String permissions) throws Exception {
        Path p = Files.writeString(tmp.resolve(name), content, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(permissions));
        return p;
    }

    @Test
    void aFileOthersCanReadIsRefusedNamingTheFileAndTheFix() throws Exception {
        Path open = tokenFile("open", "0123456789abcdef0123", "rw-r--r--");
        SharedSecret.UnusableSecretException e = assertThrows(SharedSecret.UnusableSecretException.class, () -> SharedSecret.read(open));
        assertTrue(e.getMessage().startsWith(open + " is open to other users (rw-r--r--)"), e.getMessage());
        assertTrue(e.getMessage().endsWith("chmod 600 " + open), e.getMessage());
        Path group = tokenFile("group", "0123456789abcdef0123", "rw-r-----");
        assertThrows(SharedSecret.UnusableSecretException.class, () -> SharedSecret.read(group));
    }

    @Test
    void aSecretShorterThanSixteenBytesOrEmptyIsRefused() throws Exception {
        Path shortOne = tokenFile("short", "0123456789abcde\n", "rw-------"); // 15 bytes once the newline is trimmed
        SharedSecret.UnusableSecretException e = assertThrows(SharedSecret.UnusableSecretException.class, () -> SharedSecret.read(shortOne));
        assertTrue(e.getMessage().contains("holds 15 bytes; a shared secret needs at least 16"), e.getMessage());
        Path empty = tokenFile("empty", "", "rw-------");
        assertTrue(assertThrows(SharedSecret.UnusableSecretException.class, () -> SharedSecret.read(empty)).getMessage().contains("holds 0 bytes"));
        Path missing = tmp.resolve("missing");
        assertTrue(assertThrows(SharedSecret.UnusableSecretException.class, () -> SharedSecret.read(missing)).getMessage()
                .startsWith(missing + ": no such file"));
    }

    @Test
    void oneTrailingNewlineIsNotPartOfTheSecret() throws Exception {
        byte[] s = SharedSecret.nonce();
        byte[] r = SharedSecret.nonce();
        SharedSecret bare = SharedSecret.of("0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
        byte[] expected = bare.proof(SharedSecret.Role.SENDER, s, r);
        assertArrayEquals(expected, SharedSecret.read(tokenFile("lf", "0123456789abcdef\n", "rw-------")).proof(SharedSecret.Role.SENDER, s, r));
        assertArrayEquals(expected, SharedSecret.read(tokenFile("crlf", "0123456789abcdef\r\n", "r--------")).proof(SharedSecret.Role.SENDER, s, r));
        assertFalse(SharedSecret.read(tokenFile("two", "0123456789abcdef\n\n", "rw-------")).verifies(SharedSecret.Role.SENDER, s, r, expected),
                "only one newline is trimmed");
    }

    @Test
    void aProofIsBoundToItsRoleBothNoncesAndTheSecret() {
        SharedSecret secret = SharedSecret.of("correct horse battery staple".getBytes(StandardCharsets.US_ASCII));
        SharedSecret other = SharedSecret.of("correct horse battery stapler".getBytes(StandardCharsets.US_ASCII));
        byte[] s = SharedSecret.nonce();
        byte[] r = SharedSecret.nonce();
        byte[] senderProof = secret.proof(SharedSecret.Role.SENDER, s, r);
        assertEquals(SharedSecret.PROOF_BYTES, senderProof.length);
        assertTrue(secret.verifies(SharedSecret.Role.SENDER, s, r, senderProof));
        assertFalse(secret.verifies(SharedSecret.Role.RECEIVER, s, r, senderProof), "a sender's proof is no receiver's proof");
        assertFalse(secret.verifies(SharedSecret.Role.SENDER, r, s, senderProof), "the nonces' order counts");
        assertFalse(secret.verifies(SharedSecret.Role.SENDER, s, SharedSecret.nonce(), senderProof), "a proof is good for one session");
        assertFalse(other.verifies(SharedSecret.Role.SENDER, s, r, senderProof), "another secret gives another proof");
        assertFalse(java.util.Arrays.equals(s, r), "fresh nonces differ");
        assertThrows(IllegalArgumentException.class, () -> SharedSecret.of(new byte[15]));
        assertEquals("SharedSecret[hidden]", secret.toString());
    }
}
