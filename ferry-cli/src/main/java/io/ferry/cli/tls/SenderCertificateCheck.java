package io.ferry.cli.tls;

import io.ferry.transport.tls.Fingerprints;
import io.ferry.transport.tls.OneSidedTrustManager;

import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which senders a receiver lets in, by the certificate each presents in the TLS handshake: one whose
 * SHA-256 fingerprint is allowed ({@code --allow}), or one that chains to a CA certificate given
 * ({@code --client-ca}, validated by the JDK's PKIX checks: dates, signatures, key usage). A sender
 * without a certificate, or with another one, fails the handshake; the refusal names the fingerprint
 * of what it presented, so that an operator can allow it.
 */
public final class SenderCertificateCheck extends OneSidedTrustManager {

    private final Set<String> allowed;
    private final X509TrustManager authority;
    private final String authorityFile;
    /** Told of each refusal (QUIC's handshake fails before any channel exists to report it); by default nobody. */
    private volatile java.util.function.Consumer<String> refusals = why -> { };

    private SenderCertificateCheck(Set<String> allowed, X509TrustManager authority, String authorityFile) {
        super("senders");
        this.allowed = allowed;
        this.authority = authority;
        this.authorityFile = authorityFile;
    }

    /**
     * @param fingerprints allowed certificates, {@code sha256:HEX} (see {@link Fingerprints#parse})
     * @param clientCa     a PEM file of CA certificates whose issued certificates are allowed, or null
     * @throws IllegalArgumentException if a fingerprint is malformed or neither is given
     * @throws IOException              if the CA file cannot be read or holds no certificate
     */
    public static SenderCertificateCheck of(List<String> fingerprints, Path clientCa) throws IOException {
        Set<String> allowed = new LinkedHashSet<>();
        for (String f : fingerprints) {
            allowed.add(Fingerprints.parse(f));
        }
        if (allowed.isEmpty() && clientCa == null) {
            throw new IllegalArgumentException("no sender would be allowed: give --allow sha256:... or --client-ca FILE");
        }
        return new SenderCertificateCheck(Set.copyOf(allowed), clientCa == null ? null : authority(clientCa),
                clientCa == null ? null : clientCa.toString());
    }

    private static X509TrustManager authority(Path file) throws IOException {
        Collection<? extends Certificate> certificates;
        try (InputStream in = Files.newInputStream(file)) {
            certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
        } catch (GeneralSecurityException e) {
            throw new IOException(file + " is not a PEM file of CA certificates: " + e.getMessage(), e);
        }
        if (certificates.isEmpty()) {
            throw new IOException(file + " holds no certificate");
        }
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int i = 0;
            for (Certificate c : certificates) {
                store.setCertificateEntry("ca-" + i++, c);
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            for (TrustManager tm : factory.getTrustManagers()) {
                if (tm instanceof X509TrustManager) {
                    return (X509TrustManager) tm;
                }
            }
            throw new IOException("no X.509 trust manager for " + file);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot use " + file + " as CA certificates: " + e.getMessage(), e);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        if (chain == null || chain.length == 0) {
            throw refusal("the sender presented no certificate; this receiver requires one");
        }
        String fingerprint = Fingerprints.of(chain[0]);
        if (allowed.contains(fingerprint)) {
            return;
        }
        if (authority != null) {
            try {
                authority.checkClientTrusted(chain, authType);
                return;
            } catch (CertificateException e) {
                throw refusal("the sender's certificate " + fingerprint + " is not allowed: "
                        + (allowed.isEmpty() ? "" : "not in --allow, and ") + "not issued by " + authorityFile + " (" + e.getMessage() + ")", e);
            }
        }
        throw refusal("the sender's certificate " + fingerprint + " is not allowed (not in --allow)");
    }

    /**
     * A refusal BoringSSL (QUIC's TLS) answers with the alert bad_certificate, as the JDK's TLS does; a plain
     * {@link CertificateException} would reach the sender as internal_error.
     */
    /** Tells {@code listener} why each sender it refuses is refused (for a receiver whose TLS has no channel to report it). */
    public void onRefusal(java.util.function.Consumer<String> listener) {
        this.refusals = listener;
    }

    private CertificateException refusal(String why) {
        return refusal(why, null);
    }

    private CertificateException refusal(String why, Throwable cause) {
        refusals.accept(why);
        CertificateException e = new io.netty.handler.ssl.OpenSslCertificateException(why, X509_V_ERR_CERT_REJECTED);
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }

    /** OpenSSL's and BoringSSL's "certificate rejected" verification error. */
    private static final int X509_V_ERR_CERT_REJECTED = 28;
}
