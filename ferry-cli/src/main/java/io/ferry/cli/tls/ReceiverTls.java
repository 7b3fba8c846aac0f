package io.ferry.cli.tls;

import io.ferry.transport.quic.QuicOption;
import io.ferry.transport.quic.QuicTransport;
import io.ferry.transport.tls.Fingerprints;
import io.ferry.transport.tls.SelfSignedCertificates;

import io.ferry.cli.transfer.TransferProtocol;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OptionalSslHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.ReferenceCountUtil;

import javax.net.ssl.SSLException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.io.InputStream;

/**
 * TLS for a receiver: Netty's {@code SslHandler} first in every accepted connection's pipeline, on any
 * transport. A sender that connects without TLS is told so in plain ferry frames instead of getting a
 * dropped connection.
 */
public final class ReceiverTls {

    private final SslContext context;
    private final String fingerprint;
    /** Makes the same identity and sender check for QUIC's own TLS, on demand ({@link #quic}). */
    private final QuicServerIdentity quicIdentity;
    private final SenderCertificateCheck senders;

    /** The receiver's certificate for a QUIC server context. */
    private interface QuicServerIdentity {
        QuicSslContextBuilder builder() throws IOException;
    }

    private ReceiverTls(SslContext context, String fingerprint, QuicServerIdentity quicIdentity, SenderCertificateCheck senders) {
        this.context = context;
        this.fingerprint = fingerprint;
        this.quicIdentity = quicIdentity;
        this.senders = senders;
    }

    /**
     * The same certificate and sender check for QUIC's own TLS ({@link QuicOption#SERVER_TLS}): a {@code quic://}
     * receiver needs no TLS inside QUIC's, and its senders' {@code --pin} is the same fingerprint.
     */
    public QuicSslContext quic() throws IOException {
        QuicSslContextBuilder b = quicIdentity.builder().applicationProtocols(QuicTransport.APPLICATION_PROTOCOL);
        if (senders != null) {
            b.clientAuth(ClientAuth.REQUIRE).trustManager(senders);
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new IOException("cannot set up QUIC's TLS: " + e.getMessage(), e);
        }
    }

    /** The TLS implementation this receiver runs on, in a few words ({@link TlsEngines#describe}). */
    public String engine() {
        return TlsEngines.describe(context);
    }

    /** From a PEM certificate (chain) and a PEM PKCS#8 private key; any sender may connect. */
    public static ReceiverTls fromPem(Path certificate, Path key) throws IOException {
        return fromPem(certificate, key, null);
    }

    /**
     * From a PEM certificate (chain) and a PEM PKCS#8 private key; with {@code senders} not null, only
     * senders whose certificate it allows complete the handshake.
     */
    public static ReceiverTls fromPem(Path certificate, Path key, SenderCertificateCheck senders) throws IOException {
        X509Certificate leaf;
        try (InputStream in = Files.newInputStream(certificate)) {
            leaf = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        } catch (GeneralSecurityException e) {
            throw new IOException(certificate + " is not a PEM certificate: " + e.getMessage(), e);
        }
        try {
            QuicServerIdentity quic = () -> {
                try {
                    return QuicSslContextBuilder.forServer(key.toFile(), null, certificate.toFile());
                } catch (IllegalArgumentException e) {
                    throw new IOException("cannot use " + certificate + " and " + key + " for QUIC: " + e.getMessage(), e);
                }
            };
            return new ReceiverTls(checking(SslContextBuilder.forServer(certificate.toFile(), key.toFile()), senders).build(),
                    Fingerprints.of(leaf), quic, senders);
        } catch (SSLException | IllegalArgumentException e) {
            throw new IOException("cannot use " + certificate + " and " + key + ": " + e.getMessage(), e);
        }
    }

    /** A generated self-signed pair (see {@link SelfSignedCertificates}); any sender may connect. */
    public static ReceiverTls selfSigned(String hostName) throws IOException {
        return selfSigned(hostName, null);
    }

    /** A generated self-signed pair; with {@code senders} not null, only the senders it allows get in. */
    public static ReceiverTls selfSigned(String hostName, SenderCertificateCheck senders) throws IOException {
        try {
            SelfSignedCertificates.Generated generated = SelfSignedCertificates.generate(hostName);
            QuicServerIdentity quic = () -> QuicSslContextBuilder.forServer(generated.privateKey(), null, generated.certificate());
            return new ReceiverTls(checking(SslContextBuilder.forServer(generated.keyManagers()), senders).build(), generated.fingerprint(),
                    quic, senders);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot generate a self-signed certificate: " + e.getMessage(), e);
        }
    }

    private static SslContextBuilder checking(SslContextBuilder builder, SenderCertificateCheck senders) {
        return senders == null ? builder : builder.clientAuth(ClientAuth.REQUIRE).trustManager(senders);
    }

    /** The SHA-256 fingerprint of the receiver's certificate, for senders' {@code --pin}. */
    public String fingerprint() {
        return fingerprint;
    }

    /** Adds TLS (or the refusal of a plaintext sender) in front of whatever the pipeline holds. */
    public void addTo(ChannelPipeline pipeline) {
        pipeline.addFirst("tls", new OptionalSslHandler(context) {
            @Override
            protected ChannelHandler newNonSslHandler(ChannelHandlerContext ctx) {
                return new PlaintextRefusal();
            }
        });
    }

    /** Answers a plaintext peer with a ferry refusal it can print, drops whatever else it sends, and closes. */
    private static final class PlaintextRefusal extends ChannelInboundHandlerAdapter {
        private boolean answered;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
            if (!answered) {
                answered = true;
                TransferProtocol.refuse(ctx, "this receiver requires TLS; send with --tls (and --pin or --ca to trust its certificate)");
            }
        }
    }
}
