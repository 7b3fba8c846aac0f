package io.ferry.cli.tls;

import io.ferry.transport.tls.PinnedTrustManager;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;

import javax.net.ssl.SSLException;
import java.io.IOException;
import java.nio.file.Path;

/**
 * TLS for a sender: trusts a pinned certificate fingerprint, a given CA certificate file (with host
 * name verification), or the JDK's default trust store (with host name verification).
 */
public final class SenderTls {

    private final SslContext context;

    private SenderTls(SslContext context) {
        this.context = context;
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
                .endpointIdentificationAlgorithm(null), certificate, key));
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
        return build(identity(builder, certificate, key));
    }

    /** Trusts what the JDK trusts, checking the host name. */
    public static SenderTls systemTrust() throws IOException {
        return systemTrust(null, null);
    }

    /** As {@link #systemTrust()}, presenting a certificate of its own (see {@link #pinned(String, Path, Path)}). */
    public static SenderTls systemTrust(Path certificate, Path key) throws IOException {
        return build(identity(SslContextBuilder.forClient().endpointIdentificationAlgorithm("HTTPS"), certificate, key));
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

    private static SenderTls build(SslContextBuilder builder) throws IOException {
        try {
            return new SenderTls(builder.build());
        } catch (SSLException e) {
            throw new IOException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    /** Adds an {@link SslHandler} for {@code host} first in the pipeline. */
    public SslHandler addTo(ChannelPipeline pipeline, String host, int port) {
        SslHandler handler = context.newHandler(pipeline.channel().alloc(), host, port);
        pipeline.addFirst("tls", handler);
        return handler;
    }
}
