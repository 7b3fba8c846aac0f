package io.ferry.transport.tls;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.net.ssl.X509TrustManager;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Names checked as the JDK's HTTPS endpoint identification checks them, on a certificate keytool made. */
class HostCheckingTrustManagerTest {

    private static X509Certificate certificate;
    /** Trusts any chain: only the name check is under test. */
    private static final X509TrustManager ANY_CHAIN = new OneSidedTrustManager("receivers") {
        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }
    };

    @BeforeAll
    static void certificate() throws Exception {
        certificate = SelfSignedCertificates.generate("files.example.org").certificate();
    }

    @Test
    void namesAndAddressesTheCertificateCarriesMatch() throws Exception {
        assertTrue(HostCheckingTrustManager.matches(certificate, "files.example.org"));
        assertTrue(HostCheckingTrustManager.matches(certificate, "FILES.example.org."), "case and a trailing dot do not matter");
        assertTrue(HostCheckingTrustManager.matches(certificate, "localhost"));
        assertTrue(HostCheckingTrustManager.matches(certificate, "127.0.0.1"));
        assertTrue(HostCheckingTrustManager.matches(certificate, "::1"));
        assertTrue(HostCheckingTrustManager.matches(certificate, "[0:0:0:0:0:0:0:1]"), "an IPv6 literal in any spelling");
    }

    @Test
    void otherNamesAndAddressesDoNot() throws Exception {
        assertFalse(HostCheckingTrustManager.matches(certificate, "example.org"));
        assertFalse(HostCheckingTrustManager.matches(certificate, "evil.files.example.org"));
        assertFalse(HostCheckingTrustManager.matches(certificate, "127.0.0.2"));
        assertFalse(HostCheckingTrustManager.matches(certificate, "files.example.org.evil"));
    }

    @Test
    void aWildcardStandsForOneWholeLeftMostLabel() {
        assertTrue(HostCheckingTrustManager.dnsMatches("*.example.org", "files.example.org"));
        assertFalse(HostCheckingTrustManager.dnsMatches("*.example.org", "a.files.example.org"));
        assertFalse(HostCheckingTrustManager.dnsMatches("*.example.org", "example.org"));
        assertFalse(HostCheckingTrustManager.dnsMatches("*.org", "example.org"), "no wildcard over a top-level domain");
    }

    @Test
    void theCheckRefusesAChainWhoseCertificateNamesAnotherHost() {
        X509Certificate[] chain = {certificate};
        assertDoesNotThrow(() -> new HostCheckingTrustManager(ANY_CHAIN, "files.example.org").checkServerTrusted(chain, "UNKNOWN"));
        CertificateException e = assertThrows(CertificateException.class,
                () -> new HostCheckingTrustManager(ANY_CHAIN, "other.example.org").checkServerTrusted(chain, "UNKNOWN"));
        assertTrue(e.getMessage().contains("does not name other.example.org"), e.getMessage());
    }
}
