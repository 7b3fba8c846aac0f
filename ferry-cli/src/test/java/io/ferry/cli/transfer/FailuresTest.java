package io.ferry.cli.transfer;

import io.netty.handler.codec.DecoderException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.net.ssl.SSLHandshakeException;
import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The words a user reads for what went wrong on the network, from what the JDK's and BoringSSL's TLS say. */
class FailuresTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "Received fatal alert: bad_certificate", // the JDK
            "(certificate_required) Received fatal alert: certificate_required", // JDK 25
            "error:10000412:SSL routines:OPENSSL_internal:SSLV3_ALERT_BAD_CERTIFICATE", // BoringSSL, ferry.jar with netty-tcnative
            "error:1000045c:SSL routines:OPENSSL_internal:TLSV1_ALERT_CERTIFICATE_REQUIRED"})
    void aSenderRefusedByAllowIsToldSoWhicheverTlsEngineRan(String alert) {
        Throwable refused = new DecoderException(new SSLHandshakeException(alert));
        String line = Failures.describe(refused);
        assertTrue(line.startsWith("the receiver lets in chosen senders only and refused this one (TLS alert "), line);
        assertTrue(line.contains("--cert FILE --key FILE"), line);
        assertFalse(line.contains("version"), line);
        assertTrue(Failures.explains(refused), "nothing to add about other protocol versions");
    }

    @Test
    void aSenderThatPresentedACertificateIsToldWhichFingerprintToAllow() {
        String fingerprint = "sha256:" + "ab".repeat(32);
        String line = Failures.describe(new SSLHandshakeException("error:10000412:SSL routines:OPENSSL_internal:SSLV3_ALERT_BAD_CERTIFICATE"),
                fingerprint);
        assertEquals("the receiver lets in chosen senders only and refused this one (TLS alert bad_certificate): its operator lets "
                + "this sender in with --allow " + fingerprint + " (this sender's --cert)", line);
    }

    @Test
    void rawSystemCallErrorsAreSaidInAUsersWords() {
        assertEquals("connection refused: nothing listens there (is ferry receive running, on this port and transport?)",
                Failures.describe(new java.net.ConnectException("finishConnect(..) failed with error(-111): Connection refused: /127.0.0.1:1")));
        assertEquals("a file is in the way (./afile is not a directory)",
                Failures.directoryProblem(new java.nio.file.FileAlreadyExistsException("./afile")));
        assertEquals("closed the connection (connection reset)",
                Failures.connectionLost(new IOException("recvAddress(..) failed with error(-104): Connection reset by peer")));
    }

    @Test
    void aPlainConnectionErrorIsNotTakenForAnExplanation() {
        assertFalse(Failures.explains(new IOException("Connection reset by peer")));
    }
}
