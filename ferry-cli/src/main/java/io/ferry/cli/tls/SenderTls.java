package io.ferry.cli.tls;

import io.ferry.transport.quic.QuicOption;
import io.ferry.transport.quic.QuicTransport;
import io.ferry.transport.tls.HostCheckingTrustManager;
import io.ferry.transport.tls.OneSidedTrustManager;
import io.ferry.transport.tls.PinnedTrustManager;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;

import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.io.IOException;
import java.nio.file.Path;

/**
 * TLS for a sender: trusts a pinned certificate fingerprint, a given CA certificate file (with host
 * name verification), or the JDK's default trust store (with host name verification).
 */
public final class SenderTls {

    private final SslContext context;
    /** What {@link #quic} builds QUIC's own TLS from: one of pin and CA file (neither: the JDK's trust), the identity. */
    private final String pin;
    private final Path ca;
    private final Path certificate;
    private final Path key;
    /** Why QUIC's handshake refused the receiver's certificate: BoringSSL reports only an alert number. */
    private volatile CertificateException quicRejection;

    private SenderTls(SslContext context, String pin, Path ca, Path certificate, Path key) {
        this.context = context;
        this.pin = pin;
        this.ca = ca;
        this.certificate = certificate;
        this.key = key;
    }

    /** Trusts exactly the certificate with this fingerprint ({@code sha256:HEX}); no names or CAs are checked. */
    public static SenderTls pinned(String fingerprint) throws IOException {
        return pinned(fingerprint, null, null);
    }

    /**
     * As {@link #pinned(String)}, presenting the certificate in {@code certificate} (PEM, with the PEM
     * PKCS#8 {@code key}) to a receiver that asks senders for one; both null: none.
     */
    public static SenderTls pinned(String fingerprint, Path certificate, Path key) throws IOException {
        return build(identity(SslContextBuilder.forClient().trustManager(new PinnedTrustManager(fingerprint))
                .endpointIdentificationAlgorithm(null), certificate, key), fingerprint, null, certificate, key);
    }

    /** Trusts certificates issued by the CA certificate(s) in a PEM file, checking the host name. */
    public static SenderTls trusting(Path caCertificates) throws IOException {
        return trusting(caCertificates, null, null);
    }

    /** As {@link #trusting(Path)}, presenting a certificate of its own (see {@link #pinned(String, Path, Path)}). */
    public static SenderTls trusting(Path caCertificates, Path certificate, Path key) throws IOException {
        SslContextBuilder builder;
        try {
            builder = SslContextBuilder.forClient().trustManager(caCertificates.toFile()).endpointIdentificationAlgorithm("HTTPS");
        } catch (IllegalArgumentException e) {
            throw new IOException("cannot use " + caCertificates + " as CA certificates: " + e.getMessage(), e);
        }
        return build(identity(builder, certificate, key), null, caCertificates, certificate, key);
    }

    /** Trusts what the JDK trusts, checking the host name. */
    public static SenderTls systemTrust() throws IOException {
        return systemTrust(null, null);
    }

    /** As {@link #systemTrust()}, presenting a certificate of its own (see {@link #pinned(String, Path, Path)}). */
    public static SenderTls systemTrust(Path certificate, Path key) throws IOException {
        return build(identity(SslContextBuilder.forClient().endpointIdentificationAlgorithm("HTTPS"), certificate, key),
                null, null, certificate, key);
    }

    private static SslContextBuilder identity(SslContextBuilder builder, Path certificate, Path key) throws IOException {
        if (certificate == null && key == null) {
            return builder;
        }
        if (certificate == null || key == null) {
            throw new IllegalArgumentException("a sender certificate needs both the certificate and its key");
        }
        try {
            return builder.keyManager(certificate.toFile(), key.toFile());
        } catch (IllegalArgumentException e) {
            throw new IOException("cannot use " + certificate + " and " + key + " as this sender's certificate: "
                    + (e.getCause() != null && e.getCause().getMessage() != null ? e.getCause().getMessage() : e.getMessage()), e);
        }
    }

    private static SenderTls build(SslContextBuilder builder, String pin, Path ca, Path certificate, Path key) throws IOException {
        try {
            return new SenderTls(builder.build(), pin, ca, certificate, key);
        } catch (SSLException e) {
            throw new IOException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    /**
     * The fingerprint ({@code sha256:HEX}) of the certificate this sender presents, or null without one
     * (or when its file no longer reads: the handshake reports that).
     */
    public String identityFingerprint() {
        if (certificate == null) {
            return null;
        }
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(certificate)) {
            return io.ferry.transport.tls.Fingerprints.of((java.security.cert.X509Certificate)
                    java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in));
        } catch (IOException | java.security.cert.CertificateException | ClassCastException e) {
            return null;
        }
    }

    /** Adds an {@link SslHandler} for {@code host} first in the pipeline. */
    public SslHandler addTo(ChannelPipeline pipeline, String host, int port) {
        SslHandler handler = context.newHandler(pipeline.channel().alloc(), host, port);
        pipeline.addFirst("tls", handler);
        return handler;
    }

    /**
     * The same trust and identity for QUIC's own TLS ({@link QuicOption#CLIENT_TLS}), for a connection to
     * {@code host}: a {@code quic://} sender needs no TLS inside QUIC's. Names are checked as over TCP.
     */
    public QuicSslContext quic(String host) throws IOException {
        QuicSslContextBuilder b = QuicSslContextBuilder.forClient().applicationProtocols(QuicTransport.APPLICATION_PROTOCOL);
        try {
            X509TrustManager trust = pin != null ? new PinnedTrustManager(pin)
                    : new HostCheckingTrustManager(ca != null ? caTrust(ca) : jdkTrust(), host);
            b.trustManager(new Remembering(trust));
            if (certificate != null) {
                b.keyManager(key.toFile(), null, certificate.toFile());
            }
            return b.build();
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IOException("cannot set up QUIC's TLS: " + e.getMessage(), e);
        }
    }

    /** Why the last QUIC handshake refused the receiver's certificate, in the trust manager's words; null if none did. */
    public CertificateException quicRejection() {
        return quicRejection;
    }

    /** Checks receivers with {@code trust} and remembers why it refused one ({@link #quicRejection}). */
    private final class Remembering extends OneSidedTrustManager {
        private final X509TrustManager trust;

        Remembering(X509TrustManager trust) {
            super("receivers");
            this.trust = trust;
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            try {
                trust.checkServerTrusted(chain, authType);
            } catch (CertificateException e) {
                quicRejection = e;
                throw e;
            }
        }
    }

    private static X509TrustManager jdkTrust() throws GeneralSecurityException {
        TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        f.init((KeyStore) null);
        return HostCheckingTrustManager.x509(f.getTrustManagers());
    }

    /** The CA certificates of a PEM file as an X.509 trust manager. */
    private static X509TrustManager caTrust(Path caCertificates) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        try (InputStream in = Files.newInputStream(caCertificates)) {
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("ca-" + i++, c);
            }
        }
        TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        f.init(store);
        return HostCheckingTrustManager.x509(f.getTrustManagers());
    }
}
