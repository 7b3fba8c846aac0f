package io.ferry.transport.tls;

import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;

/**
 * Trusts exactly one server certificate, identified by its SHA-256 fingerprint: what a sender uses
 * to reach a receiver with a self-signed certificate without any certificate authority. Names and
 * validity dates are not checked; the pin is the identity.
 */
public final class PinnedTrustManager extends OneSidedTrustManager {

    private final String pinned;

    /** @param fingerprint {@code sha256:HEX}, see {@link Fingerprints#parse} */
    public PinnedTrustManager(String fingerprint) {
        super("receivers");
        this.pinned = Fingerprints.parse(fingerprint);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        if (chain == null || chain.length == 0) {
            throw new CertificateException("the receiver presented no certificate");
        }
        String actual = Fingerprints.of(chain[0]);
        if (!actual.equals(pinned)) {
            throw new CertificateException("the receiver's certificate " + actual + " does not match the pinned " + pinned);
        }
    }
}
