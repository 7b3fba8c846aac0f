package io.ferry.examples.tls;

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
        return build(SslContextBuilder.forClient().trustManager(new PinnedTrustManager(fingerprint)).endpointIdentificationAlgorithm(null));
    }

    /** Trusts certificates issued by the CA certificate(s) in a PEM file, checking the host name. */
    public static SenderTls trusting(Path caCertificates) throws IOException {
        try {
            return build(SslContextBuilder.forClient().trustManager(caCertificates.toFile()).endpointIdentificationAlgorithm("HTTPS"));
        } catch (IllegalArgumentException e) {
            throw new IOException("cannot use " + caCertificates + " as CA certificates: " + e.getMessage(), e);
        }
    }

    /** Trusts what the JDK trusts, checking the host name. */
    public static SenderTls systemTrust() throws IOException {
        return build(SslContextBuilder.forClient().endpointIdentificationAlgorithm("HTTPS"));
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
