package io.ferry.transport.tls;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;

/**
 * A trust manager that checks one side only, by certificate chain: the socket and engine variants
 * the JDK calls all come down to {@link #checkClientTrusted(X509Certificate[], String)} and
 * {@link #checkServerTrusted(X509Certificate[], String)}, the side it does not check refuses, and no
 * issuers are named (the peer may present any certificate; the check decides).
 */
public abstract class OneSidedTrustManager extends X509ExtendedTrustManager {

    /** The side checked, named in the refusal of the other: "senders" or "receivers". */
    private final String checks;

    protected OneSidedTrustManager(String checks) {
        this.checks = checks;
    }

    /** Refuses: this manager checks the other side. Subclasses that check clients override it. */
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("this trust manager only checks " + checks);
    }

    /** Refuses: this manager checks the other side. Subclasses that check servers override it. */
    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("this trust manager only checks " + checks);
    }

    @Override
    public final void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        checkClientTrusted(chain, authType);
    }

    @Override
    public final void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        checkClientTrusted(chain, authType);
    }

    @Override
    public final void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        checkServerTrusted(chain, authType);
    }

    @Override
    public final void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        checkServerTrusted(chain, authType);
    }

    @Override
    public final X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
    }
}
