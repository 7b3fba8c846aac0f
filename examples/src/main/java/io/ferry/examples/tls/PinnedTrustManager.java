package io.ferry.examples.tls;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;

/**
 * Trusts exactly one server certificate, identified by its SHA-256 fingerprint: what a sender uses
 * to reach a receiver with a self-signed certificate without any certificate authority. Names and
 * validity dates are not checked; the pin is the identity.
 */
public final class PinnedTrustManager extends X509ExtendedTrustManager {

    private final String pinned;

    /** @param fingerprint {@code sha256:HEX}, see {@link Fingerprints#parse} */
    public PinnedTrustManager(String fingerprint) {
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

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        checkServerTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        checkServerTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("a pinned trust manager only checks servers");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        checkClientTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        checkClientTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
    }
}
